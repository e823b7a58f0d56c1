/// The characters the simulated users type: every keystroke a Unicode scalar never typed
/// before in the run, so that any character in any text says exactly which keystroke made it.
///
/// Three pools, so texts mix UTF-8 widths and UTF-16 surrogate pairs: CJK ideographs
/// (U+4E00–U+9FFF, 3 UTF-8 bytes, 1 UTF-16 unit), Hangul syllables (U+AC00–U+D7A3), and the
/// supplementary planes (U+10000–U+10FFFF, 4 bytes, a surrogate pair). About 1.08 million
/// characters per run; past that, typing falls back to untracked ASCII letters (as do the
/// ASCII characters a seed mixes in on purpose, to exercise the ASCII paths).
public enum TrackedAlphabet {
    /// A pool: its first scalar and its size.
    struct Pool {
        var first: UInt32
        var count: Int
    }

    static let pools: [Pool] = [
        Pool(first: 0x4E00, count: 0xA000 - 0x4E00),
        Pool(first: 0xAC00, count: 0xD7A4 - 0xAC00),
        Pool(first: 0x1_0000, count: 0x11_0000 - 0x1_0000),
    ]

    /// The pool and position of a tracked scalar, or nil for any other scalar.
    @inline(__always)
    static func locate(_ scalar: UInt32) -> (pool: Int, index: Int)? {
        if scalar >= 0x1_0000 { return (2, Int(scalar - 0x1_0000)) }
        if scalar >= 0xAC00 && scalar < 0xD7A4 { return (1, Int(scalar - 0xAC00)) }
        if scalar >= 0x4E00 && scalar < 0xA000 { return (0, Int(scalar - 0x4E00)) }
        return nil
    }

    /// The scalar at `index` of `pool`.
    @inline(__always)
    static func scalar(pool: Int, index: Int) -> UInt32 {
        pools[pool].first + UInt32(index)
    }

    /// The untracked characters: ASCII letters, a space and a newline.
    static let untracked: [UInt32] = Array("abcdefghijklmnopqrstuvwxyz \n".unicodeScalars.map(\.value))
}

/// Turns scalar values into a `String`.
@inline(__always)
func string(fromScalars scalars: some Sequence<UInt32>) -> String {
    var view = String.UnicodeScalarView()
    for value in scalars { view.append(Unicode.Scalar(value)!) }
    return String(view)
}

/// The number of UTF-16 units of the scalars `scalars[range]`.
@inline(__always)
func utf16Count(_ scalars: [UInt32], _ range: Range<Int>) -> Int {
    var count = range.count
    for index in range where scalars[index] >= 0x1_0000 { count += 1 }
    return count
}
