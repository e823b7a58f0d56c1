// `memo-bench complexity`: README says a local edit, a remote insertion and an offset conversion
// are O(log n) in the text. Each is timed on two texts, the second 16 times the first's size,
// both built by typing and deleting at random places (so their trees hold many runs and
// tombstones, as a long-edited memo's do, not one run), and the two per-operation times are
// compared as a ratio in one run: O(log n) gives about 1.3 (log 131,072 / log 8,192, plus what a
// larger tree costs in cache misses), O(n) gives 16. Target: each ratio at most 3.

import MemoCRDT

extension BenchRandom {
    /// A number in `0 ..< bound` (0 when `bound` is 0 or less).
    fileprivate mutating func below(_ bound: Int) -> Int { bound > 0 ? int(0..<bound) : 0 }
}

enum ComplexityBenchmark {
    /// The smaller text's length in characters (UTF-16 units: the typing is ASCII).
    static let smallCharacters = 8_192
    /// How many times larger the second text is.
    static let factor = 16
    /// Operations timed per measure and text (each text grows by at most this many characters).
    static let operations = 2_000
    /// The largest ratio of per-operation times the README's "O(log n)" allows here.
    static let targetRatio = 3.0

    /// A text of about `characters` visible characters, typed in chunks of 1 to 8 at random
    /// places with a deletion every fourth step.
    static func fragmentedText(characters: Int, steps: inout BenchRandom) throws -> TextCRDT {
        var text = TextCRDT(replica: ReplicaID(1))
        var step = 0
        while text.lengthUTF16 < characters {
            let length = text.lengthUTF16
            if step % 4 == 3, length > 16 {
                let start = steps.below(length - 4)
                try text.delete(utf16Range: start..<(start + 1 + steps.below(3)))
            } else {
                let chunk = String(repeating: Character(UnicodeScalar(UInt8(97 + steps.below(26)))), count: 1 + steps.below(8))
                try text.insert(chunk, atUTF16: steps.below(length + 1))
            }
            step += 1
        }
        return text
    }

    /// Nanoseconds per operation of each measure on `text`.
    static func measure(_ text: TextCRDT, runs: Int, steps: inout BenchRandom) throws -> (local: Double, remote: Double, offset: Double) {
        let length = text.lengthUTF16
        let positions = (0..<operations).map { _ in steps.below(length) }
        // Local: one character typed at each position (on a copy, each run from the same text).
        let local = try Measure.medianMilliseconds(runs: runs) { () throws(TextError) in
            var copy = text
            for position in positions { try copy.insert("x", atUTF16: position) }
            return copy.lengthUTF16
        }
        // Remote: the same typing done by another replica, applied as one delta.
        var other = text.fork(replica: ReplicaID(2))
        for position in positions { try other.insert("y", atUTF16: position) }
        let delta = other.changes(since: text.version)
        let remote = try Measure.medianMilliseconds(runs: runs) { () throws(TextError) in
            var copy = text
            _ = try copy.apply(delta)
            return copy.lengthUTF16
        }
        guard remote.firstResult == length + operations else { throw BenchFailure.usage("the remote typing did not apply whole") }
        // Offsets: a UTF-16 offset to an anchor and back.
        let offset = try Measure.medianMilliseconds(runs: runs) { () throws(TextError) in
            var sum = 0
            for position in positions { sum &+= try text.utf16Offset(of: try text.anchor(atUTF16: position)) }
            return sum
        }
        guard offset.firstResult == positions.reduce(0, &+) else { throw BenchFailure.usage("offsets did not round-trip") }
        let perOperation = 1e6 / Double(operations)
        return (local.milliseconds * perOperation, remote.milliseconds * perOperation, offset.milliseconds * perOperation)
    }

    static func run(runs: Int) throws -> Report {
        var steps = BenchRandom(seed: 2026)
        let small = try fragmentedText(characters: smallCharacters, steps: &steps)
        let large = try fragmentedText(characters: smallCharacters * factor, steps: &steps)
        let smallTimes = try measure(small, runs: runs, steps: &steps)
        let largeTimes = try measure(large, runs: runs, steps: &steps)
        var report = Report()
        report.add("benchmark", .string("complexity"))
        report.add("characters_small", .integer(small.lengthUTF16))
        report.add("characters_large", .integer(large.lengthUTF16))
        report.add("operations", .integer(operations))
        for (name, smallNanoseconds, largeNanoseconds) in [
            ("local_edit", smallTimes.local, largeTimes.local),
            ("remote_insert", smallTimes.remote, largeTimes.remote),
            ("offset_conversion", smallTimes.offset, largeTimes.offset),
        ] {
            report.add("\(name)_ns_small", .number(smallNanoseconds))
            report.add("\(name)_ns_large", .number(largeNanoseconds))
            report.add("\(name)_ratio", .number(largeNanoseconds / smallNanoseconds))
        }
        report.add("target_ratio", .number(targetRatio))
        report.add("runs", .integer(runs))
        return report
    }
}
