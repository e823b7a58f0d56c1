// `memo-bench notebook`: a synthetic library of memos typed by three replicas, then the figures a
// notes app lives by: load, list, search, and the size of one edit's delta.

import Foundation
import MemoCRDT

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
    /// Words a memo is typed from: Korean, Japanese and Latin (some accented), mixed per memo.
    static let words: [[String]] = [
        ["회의", "내일", "장보기", "우유", "계란", "프로젝트", "일정", "확인", "메모", "생각", "오늘", "주말", "여행", "책"],
        ["買い物", "牛乳", "明日", "会議", "プロジェクト", "予定", "確認", "メモ", "考え", "今日", "週末", "旅行", "本", "ごはん"],
        ["café", "meeting", "tomorrow", "groceries", "milk", "eggs", "project", "schedule", "résumé", "naïve",
         "notes", "idea", "today", "weekend", "travel", "book", "Zürich", "crème", "brûlée", "über"],
    ]

    /// A phrase of roughly `scalars` scalars from the memo's languages.
    static func phrase(scalars: Int, languages: [Int], random: inout BenchRandom) -> String {
        var result = ""
        var count = 0
        while count < scalars {
            let list = words[languages[random.int(0..<languages.count)]]
            let word = list[random.int(0..<list.count)]
            result += word + (random.int(0..<12) == 0 ? ".\n" : " ")
            count += word.unicodeScalars.count + 1
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

    /// The result line for a library of `memoCount` memos, timing `runs` repetitions.
    static func run(memoCount: Int, runs: Int) throws -> Report {
        var random = BenchRandom(seed: 0x4E07_EB00)
        let clock = ContinuousClock()
        let buildStart = clock.now
        let built = try build(memoCount: memoCount, random: &random)
        let buildSeconds = (clock.now - buildStart) / .seconds(1)

        let encode = Measure.medianMilliseconds(runs: runs) { built.encoded() }
        let bytes = encode.firstResult
        let decode = try Measure.medianMilliseconds(runs: runs) { () throws(DecodingError) in
            try Notebook(decoding: bytes, replica: ReplicaID(0xD))
        }
        var notebook = decode.firstResult
        let list = Measure.medianMilliseconds(runs: runs) { notebook.list() }
        let queries = ["café", "회의", "プロジェクト", "brulee"]
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

        var report = Report()
        report.add("benchmark", .string("notebook"))
        report.add("memos", .integer(built.activeMemoCount))
        report.add("text_bytes", .integer(built.list().reduce(0) { $0 + built.memo($1.id)!.text.utf8.count }))
        report.add("encoded_bytes", .integer(bytes.count))
        report.add("encode_ms", .milliseconds(encode.milliseconds))
        report.add("decode_ms", .milliseconds(decode.milliseconds))
        report.add("list_ms", .milliseconds(list.milliseconds))
        report.add("search_cold_ms", .milliseconds(Measure.median(coldTimes)))
        report.add("search_warm_ms", .milliseconds(Measure.median(warmTimes)))
        report.add("search_matches", .string(zip(queries, matches).map { "\($0)=\($1)" }.joined(separator: ",")))
        report.add("delta_bytes_one_edit", .integer(delta.count))
        report.add("edited_memo_bytes", .integer(memoBytes))
        report.add("materialize_memo_ms", .milliseconds(materialize.milliseconds))
        report.add("decoded_rss_mib", mebibytes.map { .number($0) })
        report.add("build_s", .number(buildSeconds))
        return report
    }
}
