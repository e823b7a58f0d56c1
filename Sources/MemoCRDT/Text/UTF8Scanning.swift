// Counting and stepping through UTF-8 bytes that are known to be valid (they come from a Swift
// `String` or were validated by the decoder). These loops are the only place offsets in one
// unit are turned into offsets in another inside a span.

package enum UTF8Scanning {
    /// Scalars and UTF-16 units in valid UTF-8 `bytes`.
    @inline(__always)
    static func counts<C: Collection<UInt8>>(of bytes: C) -> (scalars: Int, utf16: Int) {
        var scalars = 0
        var astral = 0
        for byte in bytes {
            if byte & 0xC0 != 0x80 { scalars += 1 }
            if byte >= 0xF0 { astral += 1 }
        }
        return (scalars, scalars + astral)
    }

    /// Length in bytes of the scalar whose first byte is `lead`.
    @inline(__always)
    static func scalarLength(lead: UInt8) -> Int {
        lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
    }

    /// Byte offset and UTF-16 offset after the first `scalarCount` scalars of `bytes[start...]`.
    @inline(__always)
    static func advance<C: RandomAccessCollection<UInt8>>(
        _ bytes: C, from start: Int, scalars scalarCount: Int
    ) -> (bytes: Int, utf16: Int) where C.Index == Int {
        var position = start
        var utf16 = 0
        for _ in 0..<scalarCount {
            let length = scalarLength(lead: bytes[position])
            position += length
            utf16 += length == 4 ? 2 : 1
        }
        return (position - start, utf16)
    }

    /// Scalars covered by the first `units` UTF-16 units of `bytes[start...]`, or nil when
    /// `units` ends between the halves of a surrogate pair.
    static func scalars<C: RandomAccessCollection<UInt8>>(
        _ bytes: C, from start: Int, utf16 units: Int
    ) -> Int? where C.Index == Int {
        var position = start
        var utf16 = 0
        var scalars = 0
        while utf16 < units {
            let length = scalarLength(lead: bytes[position])
            position += length
            utf16 += length == 4 ? 2 : 1
            scalars += 1
        }
        return utf16 == units ? scalars : nil
    }

    /// Whether `bytes` is well-formed UTF-8 (shortest forms, no surrogates, at most U+10FFFF).
    static func isValid<C: Collection<UInt8>>(_ bytes: C) -> Bool where C.Index == Int {
        if let answer = bytes.withContiguousStorageIfAvailable({ isValid($0) }) { return answer }
        return Array(bytes).withUnsafeBufferPointer { isValid($0) }
    }

    /// Whether `bytes` is well-formed UTF-8 (shortest forms, no surrogates, at most U+10FFFF):
    /// ASCII eight bytes at a time between characters, everything else through the
    /// ``validationTransitions`` automaton, a byte at a time without a branch on its value.
    package static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let end = bytes.count
        return validationTransitions.withUnsafeBufferPointer { table in
            var state: UInt64 = 0
            var index = 0
            while index < end {
                if state == 0 {
                    while end - index >= 8 {
                        let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                        if word & 0x8080_8080_8080_8080 != 0 { break }
                        index += 8
                    }
                }
                // Up to 16 bytes through the automaton (mixed text: an ASCII word between two
                // Hangul ones costs no more than they do), then the ASCII path again.
                let stop = min(end, index + 16)
                while index < stop {
                    state = (table[Int(base[index])] >> state) & 63
                    index += 1
                }
            }
            return state == 0
        }
    }

    /// The UTF-8 validation automaton as a shift table (a "shift-based DFA"): a state is a bit
    /// offset, and `table[byte] >> state & 63` is the next state. States: 0 between characters
    /// (accepting), 6 error (every byte keeps it there), 12 one continuation byte left, 18 two
    /// left, 24 after E0 (next A0-BF: no overlong form), 30 after ED (next 80-9F: no
    /// surrogate), 36 after F0 (next 90-BF), 42 after F1-F3 (three left), 48 after F4 (next
    /// 80-8F: at most U+10FFFF). The same language as the Unicode standard's table 3-7.
    static let validationTransitions: [UInt64] = {
        let (accept, error, one, two, afterE0, afterED, afterF0, three, afterF4): (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
            (0, 6, 12, 18, 24, 30, 36, 42, 48)
        let states = [accept, error, one, two, afterE0, afterED, afterF0, three, afterF4]
        return (0...255).map { (byte: Int) -> UInt64 in
            var word: UInt64 = 0
            for state in states {
                let next: UInt64
                switch (state, byte) {
                case (accept, 0x00...0x7F): next = accept
                case (accept, 0xC2...0xDF): next = one
                case (accept, 0xE0): next = afterE0
                case (accept, 0xE1...0xEC), (accept, 0xEE...0xEF): next = two
                case (accept, 0xED): next = afterED
                case (accept, 0xF0): next = afterF0
                case (accept, 0xF1...0xF3): next = three
                case (accept, 0xF4): next = afterF4
                case (one, 0x80...0xBF): next = accept
                case (two, 0x80...0xBF), (afterE0, 0xA0...0xBF), (afterED, 0x80...0x9F): next = one
                case (three, 0x80...0xBF), (afterF0, 0x90...0xBF), (afterF4, 0x80...0x8F): next = two
                default: next = error
                }
                word |= next << state
            }
            return word
        }
    }()
}
