import Foundation
import Testing

/// A damaged library through the real `memo` (issue 25): the damage is told (a warning in the
/// user's language, exit status 4), the damaged journal is kept aside untouched, and the next
/// command that changes the library cuts nothing.
@Suite struct LibraryDamageCLITests {
    /// Flips bit `bit` of byte `offset` of `file`; returns the file's bytes after.
    @discardableResult
    static func flip(_ file: String, offset: Int, bit: Int) throws -> [UInt8] {
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        bytes[offset] ^= UInt8(1 << bit)
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return bytes
    }

    @Test("the issue's reproduction: a flipped bit in byte 20 of journal-0 is reported, kept aside, never cut")
    func flippedBitInTheFirstRecord() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("J")
        for text in ["first memo alpha", "second", "third"] { _ = try sandbox.newMemo(text, library: library) }
        let journal = library + "/journal-0"
        let damaged = try Self.flip(journal, offset: 20, bit: 2)

        let list = try sandbox.memo(["list"], library: library)
        #expect(list.status == 4, "\(list)")
        #expect(list.stderr.contains("warning") && list.stderr.contains(journal) && list.stderr.contains("1 saved record(s) lost"), "\(list)")
        #expect(list.stderr.contains("2 intact record(s) recovered"), "\(list)")
        // Reading changes nothing.
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: journal))) == damaged)

        let fourth = try sandbox.memo(["new", "fourth"], library: library)
        #expect(fourth.status == 4 && fourth.stdout.count == 33, "\(fourth)")
        #expect(fourth.stderr.contains(journal + ".damaged-1"), "\(fourth)")
        // The damaged journal is kept whole, untouched: not cut from 315 to 107 bytes.
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: journal + ".damaged-1"))) == damaged)
        #expect(damaged.count > 300)

        let after = try sandbox.ok(["list"], library: library)
        #expect(after.stdout.contains("fourth") && after.stderr.isEmpty, "\(after)")
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: journal + ".damaged-1"))) == damaged)
    }

    @Test("a flipped bit in the last record: the memos before it are listed, with the warning, in English, Korean and Japanese")
    func flippedBitInTheLastRecord() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("J")
        for text in ["first memo alpha", "second", "third"] { _ = try sandbox.newMemo(text, library: library) }
        let journal = library + "/journal-0"
        let size = try Data(contentsOf: URL(fileURLWithPath: journal)).count
        try Self.flip(journal, offset: size - 9, bit: 5)

        let list = try sandbox.memo(["list"], library: library)
        #expect(list.status == 4, "\(list)")
        #expect(list.stdout.contains("first memo alpha") && list.stdout.contains("second") && !list.stdout.contains("third"), "\(list)")
        #expect(list.stderr.contains("1 saved record(s) lost") && list.stderr.contains("2 intact record(s) recovered"), "\(list)")
        let korean = try sandbox.memo(["list"], library: library, environment: ["LANG": "ko_KR.UTF-8"])
        #expect(korean.status == 4 && korean.stderr.contains("경고"), "\(korean)")
        let japanese = try sandbox.memo(["list"], library: library, environment: ["LANG": "ja_JP.UTF-8"])
        #expect(japanese.status == 4 && japanese.stderr.contains("警告"), "\(japanese)")
        // --quiet does not hide it: something saved was lost.
        let quiet = try sandbox.memo(["--quiet", "list"], library: library)
        #expect(quiet.status == 4 && quiet.stderr.contains("warning"), "\(quiet)")
    }

    @Test("a crash-torn last record is cut without a warning")
    func tornTailIsNotDamage() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("J")
        for text in ["first memo alpha", "second"] { _ = try sandbox.newMemo(text, library: library) }
        let journal = library + "/journal-0"
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: journal)))
        try Data(bytes.dropLast(5)).write(to: URL(fileURLWithPath: journal))
        let list = try sandbox.ok(["list"], library: library)
        #expect(list.stdout.contains("first memo alpha") && !list.stdout.contains("second") && list.stderr.isEmpty, "\(list)")
    }
}
