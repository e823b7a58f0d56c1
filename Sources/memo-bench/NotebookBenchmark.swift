// `memo-bench notebook`: a synthetic library of memos typed by three replicas, then the figures a
// notes app lives by: load, list, search, and the size of one edit's delta.

import Foundation
import MemoCRDT
import MemoNotes

/// A deterministic generator for the synthetic library (SplitMix64).
struct BenchRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &self) }
}

/// Builds the synthetic notebook and measures it.
enum NotebookBenchmark {
    /// Vocabularies a memo is typed from: Korean, Japanese and Latin (some accented), a few
    /// thousand words each, drawn with a Zipf-like skew (word k about 1/k as often as the first),
    /// so common words are everywhere and most words are rare, as in real notes.
    static let words: [[String]] = {
        var random = BenchRandom(seed: 0x70CA_B)
        let hangul = (0..<400).map { _ in String(UnicodeScalar(0xAC00 + UInt32(random.int(0..<11_172)))!) }
        let kana = Array("あいうえおかきくけこがぎぐげごさしすせそざじずぜぞたちつてとだでなにぬねのはひふへほばびぶべぼまみむめもやゆよらりるれろわをんアイウエオカキクケコガギグゲゴサシスセソタチツテトナニヌネノハヒフヘホマミムメモラリルレロ").map(String.init)
        let kanji = Array("日本語会議明日予定確認考今週末旅行買物牛乳本計画仕事電話時間場所東京大阪先生学校友達家族食事料理").map(String.init)
        let latinSyllables = ["ca", "fé", "me", "ting", "to", "mor", "row", "gro", "ce", "ries", "pro", "ject", "sché", "dule",
            "ré", "su", "mé", "na", "ïve", "no", "tes", "i", "dea", "week", "end", "tra", "vel", "bo", "ok", "zü", "rich", "crè",
            "me", "brû", "lée", "ü", "ber", "la", "ter", "mi", "da", "so", "lu", "ción", "ma", "ñana", "ö", "ko", "lo", "gie"]
        func vocabulary(_ make: (inout BenchRandom) -> String) -> [String] {
            var seen = Set<String>()
            var list: [String] = []
            while list.count < 3_000 {
                let word = make(&random)
                if seen.insert(word).inserted { list.append(word) }
            }
            return list
        }
        return [
            vocabulary { random in (0..<(2 + random.int(0..<2))).map { _ in hangul[random.int(0..<hangul.count)] }.joined() },
            vocabulary { random in
                (0..<(2 + random.int(0..<3))).map { _ in random.int(0..<3) == 0 ? kanji[random.int(0..<kanji.count)] : kana[random.int(0..<kana.count)] }.joined()
            },
            vocabulary { random in (0..<(2 + random.int(0..<3))).map { _ in latinSyllables[random.int(0..<latinSyllables.count)] }.joined() },
        ]
    }()

    /// A word of a vocabulary, Zipf-like: index k with probability about proportional to 1/(k+1).
    static func word(_ list: [String], random: inout BenchRandom) -> String {
        // exp(U · ln(n)) − 1 is 1/x-distributed over 0..<n.
        let uniform = Double(random.next() >> 11) / Double(1 << 53)
        let index = min(list.count - 1, Int(exp(uniform * log(Double(list.count)))) - 1)
        return list[max(0, index)]
    }

    /// A phrase of roughly `scalars` scalars from the memo's languages.
    static func phrase(scalars: Int, languages: [Int], random: inout BenchRandom) -> String {
        var result = ""
        var count = 0
        while count < scalars {
            let text = word(words[languages[random.int(0..<languages.count)]], random: &random)
            result += text + (random.int(0..<12) == 0 ? ".\n" : " ")
            count += text.unicodeScalars.count + 1
        }
        return result
    }

    /// Three replicas type `memoCount` memos of about 2 KB each, in batches, syncing through
    /// encoded deltas between batches; the others also type into memos they did not create.
    /// Returns the first replica's notebook after a full sync.
    static func build(memoCount: Int, random: inout BenchRandom) throws -> Notebook {
        let replicas = [ReplicaID(0xA), ReplicaID(0xB), ReplicaID(0xC)]
        var notebooks = replicas.map { Notebook(replica: $0) }
        var now: UInt64 = 1_700_000_000_000
        var ids: [MemoID] = []
        let batch = 300
        func syncAll() throws {
            for source in notebooks.indices {
                for target in notebooks.indices where target != source {
                    let delta = try notebooks[source].changes(since: notebooks[target].version).encoded()
                    try notebooks[target].apply(NotebookDelta(decoding: delta))
                    _ = notebooks[target].takeEvents()
                }
            }
        }
        while ids.count < memoCount {
            let start = ids.count
            for index in start..<min(memoCount, start + batch) {
                let creator = index % 3
                let id = MemoID(using: &random)
                ids.append(id)
                let languages = [random.int(0..<3), random.int(0..<3)]
                now += UInt64(random.int(1_000..<60_000))
                try notebooks[creator].createMemo(id, text: "", wallMilliseconds: now)
                // The title, then the body typed phrase by phrase, mostly at the end.
                try notebooks[creator].edit(id, replacingUTF16: 0..<0, with: phrase(scalars: 12, languages: languages, random: &random) + "\n", wallMilliseconds: now)
                var length = notebooks[creator].memo(id)!.text.unicodeScalars.count
                while notebooks[creator].memo(id)!.text.utf8.count < 1_700 {
                    now += UInt64(random.int(200..<5_000))
                    let text = phrase(scalars: random.int(8..<40), languages: languages, random: &random)
                    let at = random.int(0..<5) == 0 ? random.int(0..<(length + 1)) : length
                    try notebooks[creator].edit(id, replacingScalars: at..<at, with: text, wallMilliseconds: now)
                    length += text.unicodeScalars.count
                }
                _ = notebooks[creator].takeEvents()
            }
            try syncAll()
            // The other replicas add to the batch's memos.
            for index in start..<ids.count {
                let editor = (index + 1 + random.int(0..<2)) % 3
                let id = ids[index]
                while notebooks[editor].memo(id)!.text.utf8.count < 2_048 {
                    now += UInt64(random.int(200..<5_000))
                    let length = notebooks[editor].memo(id)!.text.unicodeScalars.count
                    let text = phrase(scalars: random.int(8..<30), languages: [random.int(0..<3)], random: &random)
                    try notebooks[editor].edit(id, replacingScalars: length..<length, with: text, wallMilliseconds: now)
                }
                _ = notebooks[editor].takeEvents()
            }
            try syncAll()
        }
        return notebooks[0]
    }

    /// Keystrokes typed into one memo of about 1 MB through `Notebook.edit`, as an app types:
    /// 2,000 single characters, 50 at each of 40 places (typing continues a run, then moves).
    /// Each keystroke's time in milliseconds. (A keystroke once copied every array of the text
    /// it touched: a copy of the text was kept to undo a failed edit's clock.)
    static func keystrokesInALargeMemo() throws -> (memoBytes: Int, milliseconds: [Double]) {
        let clock = ContinuousClock()
        var notebook = Notebook(replica: ReplicaID(0x1A))
        let id = MemoID(high: 0x1A, low: 1)
        let line = "A line of a long memo, written over the years; 한 줄, 一行.\n"
        var now: UInt64 = 1_900_000_000_000
        try notebook.createMemo(id, text: String(repeating: line, count: 15_000), wallMilliseconds: now)
        let length = notebook.memo(id)!.text.utf16.count
        var times: [Double] = []
        times.reserveCapacity(2_000)
        for place in 0..<40 {
            let start = (place * 7_919) % length
            for step in 0..<50 {
                now += 150
                let offset = start + step
                let before = clock.now
                try notebook.edit(id, replacingUTF16: offset..<offset, with: "x", wallMilliseconds: now)
                times.append(Measure.milliseconds(clock.now - before))
            }
        }
        return (notebook.memo(id)!.text.utf8.count, times)
    }

    /// The result line for a library of `memoCount` memos, timing `runs` repetitions.
    static func run(memoCount: Int, runs: Int) throws -> Report {
        var random = BenchRandom(seed: 0x4E07_EB00)
        let clock = ContinuousClock()
        let buildStart = clock.now
        let built = try build(memoCount: memoCount, random: &random)
        let buildSeconds = (clock.now - buildStart) / .seconds(1)

        let encode = Measure.medianMilliseconds(runs: runs) { built.encoded() }
        let bytes = encode.firstResult
        let decodeMilliseconds = try Measure.medianMilliseconds(runs: runs) { () throws(DecodingError) in
            try Notebook(decoding: bytes, replica: ReplicaID(0xD))
        }.milliseconds
        // A notebook of its own (not sharing storage with a copy), as an app holds it.
        var notebook = try Notebook(decoding: bytes, replica: ReplicaID(0xD))
        let list = Measure.medianMilliseconds(runs: runs) { notebook.list() }
        // Words of each language, common to rare (vocabulary ranks 3, 40, 400), and an accent-
        // and case-insensitive one.
        let queries = [words[0][3], words[1][40], words[2][400], words[2][3].uppercased(), words[0][40], words[1][400]]
        // Cold: the first search on a freshly decoded notebook.
        var coldTimes: [Double] = []
        var matches: [Int] = []
        for run in 0..<runs {
            let fresh = try Notebook(decoding: bytes, replica: ReplicaID(0xD))
            let start = clock.now
            let found = fresh.search(queries[run % queries.count])
            coldTimes.append(Measure.milliseconds(clock.now - start))
            _ = found
        }
        var warmTimes: [Double] = []
        for query in queries {
            let timed = Measure.medianMilliseconds(runs: runs) { notebook.search(query) }
            warmTimes.append(timed.milliseconds)
            matches.append(timed.firstResult.count)
        }
        // One edit in one memo since the last sync.
        let target = list.firstResult[list.firstResult.count / 2].id
        let before = notebook.version
        let materialize = Measure.timed { try? notebook.prepareForEditing(target) }
        let memoBytes = notebook.memo(target)!.text.utf8.count
        try notebook.edit(target, replacingUTF16: 5..<5, with: "word ", wallMilliseconds: 1_900_000_000_000)
        let delta = try notebook.changes(since: before).encoded()
        let (_, mebibytes) = Measure.documentResidentMebibytes { try? Notebook(decoding: bytes, replica: ReplicaID(0xE)) }
        let keystrokes = try keystrokesInALargeMemo()

        var report = Report()
        report.add("benchmark", .string("notebook"))
        report.add("memos", .integer(built.activeMemoCount))
        report.add("text_bytes", .integer(built.list().reduce(0) { $0 + built.memo($1.id)!.text.utf8.count }))
        report.add("encoded_bytes", .integer(bytes.count))
        report.add("encode_ms", .milliseconds(encode.milliseconds))
        report.add("decode_ms", .milliseconds(decodeMilliseconds))
        report.add("list_ms", .milliseconds(list.milliseconds))
        report.add("search_cold_ms", .milliseconds(Measure.median(coldTimes)))
        report.add("search_warm_ms", .milliseconds(Measure.median(warmTimes)))
        report.add("search_matches", .string(zip(queries, matches).map { "\($0)=\($1)" }.joined(separator: ",")))
        report.add("delta_bytes_one_edit", .integer(delta.count))
        report.add("edited_memo_bytes", .integer(memoBytes))
        report.add("materialize_memo_ms", .milliseconds(materialize.milliseconds))
        report.add("decoded_rss_mib", mebibytes.map { .number($0) })
        report.add("large_memo_bytes", .integer(keystrokes.memoBytes))
        report.add("keystroke_large_memo_ms_median", .milliseconds(Measure.median(keystrokes.milliseconds)))
        report.add("keystroke_large_memo_ms_p99", .milliseconds(keystrokes.milliseconds.sorted()[keystrokes.milliseconds.count * 99 / 100]))
        report.add("keystroke_large_memo_ms_max", .milliseconds(keystrokes.milliseconds.max() ?? 0))
        report.add("build_s", .number(buildSeconds))
        return report
    }
}
