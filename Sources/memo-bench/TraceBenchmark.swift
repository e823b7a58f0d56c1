// Benchmarking one parsed trace: correctness, timings, sizes and memory, as one result line.

import MemoCRDT

/// Runs the measurements for one trace and assembles its result line.
enum TraceBenchmark {
    /// Everything measured for one trace, before it is rendered. Nil means "not measured".
    private struct Figures {
        var errors: [String] = []
        var isTextCorrect = false
        var divergentTransaction: Int?
        var applyMilliseconds: Double?
        var baselineMilliseconds: Double?
        var replayMilliseconds: Double?
        var mergeMilliseconds: Double?
        var finalScalars: Int?
        var spanCount: Int?
        var documentResidentMebibytes: Double?
        var peakResidentMebibytes: Double?
        var mergeFullMilliseconds: Double?
        var codec: CodecFigures?
        var history: HistoryFigures?
    }

    /// Issue 27: the sequential replay with deleted content kept (the full history).
    private struct HistoryFigures {
        /// The state with every deleted character's content (text state version 4).
        var encodedBytes: Int
        /// Encoding and decoding that state (the decode checks the history section against the
        /// text's deleted insertions).
        var encodeMilliseconds: Double
        var decodeMilliseconds: Double
        var applyMilliseconds: Double
        /// Listing the stretches and their cuts (what versions are made of).
        var listMilliseconds: Double
        var stretchCount: Int
        /// The slowest of the texts at 100 cuts spread evenly over the trace's Lamport clock.
        var textAtMillisecondsMax: Double
        /// A diff between the cuts at a quarter and three quarters of the trace.
        var diffMilliseconds: Double
    }

    /// Encoding figures of the final document.
    private struct CodecFigures {
        var encodedBytes: Int
        var encodeMilliseconds: Double
        /// Bytes to a decoded `TextCRDT` (every operation replayed, ready to edit and merge).
        var decodeMilliseconds: Double
        /// Bytes to the readable text alone (`TextCRDT.decodeString(fromEncoded:)`).
        var decodeTextMilliseconds: Double
        /// Resident memory of one decoded document.
        var decodedResidentMebibytes: Double?
        /// One keystroke continuing a typed run, as an encoded delta.
        var keystrokeDeltaBytes: Int
        /// The first keystroke at a new place, as an encoded delta.
        var firstKeystrokeDeltaBytes: Int
        var roundTripsExactly: Bool
    }

    /// Replays `trace` as its kind requires, timing `runs` repetitions of each measure, and
    /// returns the result line. Replay failures are reported in the line (`ok` false, `error`),
    /// never thrown.
    static func run(_ trace: Trace, runs: Int) -> Report {
        var figures = Figures()
        // The document the size figures describe: the sequential replay's, or for a concurrent
        // trace the merge of all agents' final documents.
        let document: TextCRDT?
        switch trace.kind {
        case .sequential:
            document = measureSequential(trace, runs: runs, into: &figures)
        case .concurrent:
            document = measureConcurrent(trace, runs: runs, into: &figures)
        }
        if let document {
            figures.finalScalars = document.lengthScalars
            figures.spanCount = document.spanCount
            figures.codec = measureCodec(document, runs: runs)
            if figures.codec?.roundTripsExactly == false {
                figures.errors.append("the decoded document differs from the encoded one")
            }
            if trace.hasSequentialForm {
                figures.history = measureHistory(trace, runs: runs, into: &figures)
            }
        }
        figures.peakResidentMebibytes = Measure.peakResidentMebibytes()

        // The result line, in its stable key order. A new figure is one more `add`.
        var report = Report()
        report.add("trace", .string(trace.name))
        report.add("kind", .string(trace.kind.rawValue))
        report.add("patches", .integer(trace.patches.count))
        report.add("txns", .integer(trace.transactions.count))
        report.add("ok", .boolean(figures.isTextCorrect && figures.errors.isEmpty))
        report.add("error", figures.errors.isEmpty ? nil : .string(figures.errors.joined(separator: "; ")))
        // Only on a wrong text. Sequential: the first txn after which the CRDT's text differs from
        // the baseline's. Concurrent: the first txn before which an agent, caught up to its
        // parents' version, holds a text different from the one any agent held at that version.
        report.add("diverged_at_txn", figures.divergentTransaction.map { .integer($0) })
        report.add("apply_ms", figures.applyMilliseconds.map { .milliseconds($0) })
        report.add("baseline_ms", figures.baselineMilliseconds.map { .milliseconds($0) })
        if let apply = figures.applyMilliseconds, let baseline = figures.baselineMilliseconds {
            report.add("ratio", .number(apply / baseline))
        }
        report.add("replay_ms", figures.replayMilliseconds.map { .milliseconds($0) })
        report.add("merge_ms", figures.mergeMilliseconds.map { .milliseconds($0) })
        // Merging every agent's operations into a fresh document by applying their changes
        // (merge_ms can take the fast path of adopting a document that holds everything).
        report.add("merge_full_ms", figures.mergeFullMilliseconds.map { .milliseconds($0) })
        report.add("final_scalars", figures.finalScalars.map { .integer($0) })
        report.add("span_count", figures.spanCount.map { .integer($0) })
        report.add("encoded_bytes", figures.codec.map { .integer($0.encodedBytes) })
        report.add("encode_ms", figures.codec.map { .milliseconds($0.encodeMilliseconds) })
        report.add("decode_ms", figures.codec.map { .milliseconds($0.decodeMilliseconds) })
        report.add("decode_text_ms", figures.codec.map { .milliseconds($0.decodeTextMilliseconds) })
        report.add("keystroke_delta_bytes", figures.codec.map { .integer($0.keystrokeDeltaBytes) })
        report.add("first_keystroke_delta_bytes", figures.codec.map { .integer($0.firstKeystrokeDeltaBytes) })
        report.add("history_encoded_bytes", figures.history.map { .integer($0.encodedBytes) })
        if let history = figures.history, let plain = figures.codec?.encodedBytes, plain > 0 {
            report.add("history_size_ratio", .number(Double(history.encodedBytes) / Double(plain)))
        }
        report.add("history_encode_ms", figures.history.map { .milliseconds($0.encodeMilliseconds) })
        report.add("history_decode_ms", figures.history.map { .milliseconds($0.decodeMilliseconds) })
        report.add("history_apply_ms", figures.history.map { .milliseconds($0.applyMilliseconds) })
        report.add("history_stretches", figures.history.map { .integer($0.stretchCount) })
        report.add("history_list_ms", figures.history.map { .milliseconds($0.listMilliseconds) })
        report.add("history_text_at_max_ms", figures.history.map { .milliseconds($0.textAtMillisecondsMax) })
        report.add("history_diff_ms", figures.history.map { .milliseconds($0.diffMilliseconds) })
        report.add("peak_rss_mib", figures.peakResidentMebibytes.map { .number($0) })
        report.add("document_rss_mib", figures.documentResidentMebibytes.map { .number($0) })
        report.add("decoded_rss_mib", figures.codec?.decodedResidentMebibytes.map { .number($0) })
        return report
    }

    /// Sequential trace: builds one document (measuring its memory and checking its text), then
    /// times the CRDT and baseline replays. Returns the document.
    private static func measureSequential(_ trace: Trace, runs: Int, into figures: inout Figures) -> TextCRDT? {
        let (built, mebibytes) = Measure.documentResidentMebibytes {
            Result { () throws(ReplayError) in try Replay.onTextCRDT(trace) }
        }
        figures.documentResidentMebibytes = mebibytes
        switch built {
        case let .success(document):
            figures.isTextCorrect = check(document.string, against: trace.endContent, "the final text", into: &figures)
            measureSequentialForm(trace, runs: runs, into: &figures)
            return document
        case let .failure(error):
            figures.errors.append(error.description)
            return nil
        }
    }

    /// Times `runs` sequential replays on the CRDT and on the baseline (only called once a
    /// replay on the CRDT succeeded); checks the baseline's text, and on a wrong CRDT text looks
    /// for the first transaction where it diverges.
    private static func measureSequentialForm(_ trace: Trace, runs: Int, into figures: inout Figures) {
        var isLinearReplayCorrect = false
        do throws(ReplayError) {
            let apply = try Measure.medianMilliseconds(runs: runs) { () throws(ReplayError) in
                try Replay.onTextCRDT(trace)
            }
            figures.applyMilliseconds = apply.milliseconds
            isLinearReplayCorrect = apply.firstResult.string == trace.endContent
            if trace.kind == .concurrent {
                // For a sequential trace this is the text already checked in measureSequential.
                _ = check(
                    apply.firstResult.string, against: trace.endContent, "the linearised replay's text",
                    into: &figures)
            }
        } catch {
            figures.errors.append(error.description)
        }
        var isBaselineCorrect = false
        do throws(ReplayError) {
            let baseline = try Measure.medianMilliseconds(runs: runs) { () throws(ReplayError) in
                try Replay.onGapBuffer(trace)
            }
            figures.baselineMilliseconds = baseline.milliseconds
            isBaselineCorrect = check(
                baseline.firstResult.string, against: trace.endContent, "the baseline's text", into: &figures)
        } catch {
            figures.errors.append(error.description)
        }
        if !isLinearReplayCorrect && isBaselineCorrect && figures.divergentTransaction == nil {
            figures.divergentTransaction = Replay.firstDivergentTransaction(trace)
        }
    }

    /// Concurrent trace: builds the merged document (measuring its memory and checking its text),
    /// then times the replay with merges and the final merge, and, when the trace also has a
    /// sequential form, the sequential measures. Returns the merged document.
    private static func measureConcurrent(_ trace: Trace, runs: Int, into figures: inout Figures) -> TextCRDT? {
        let mergeReplica = ReplicaID(UInt64(trace.agentCount) + 1)
        let (built, mebibytes) = Measure.documentResidentMebibytes {
            Result { () throws(ReplayError) in
                Replay.mergeAll(try Replay.concurrently(trace, verifyingVersions: true).documents, replica: mergeReplica)
            }
        }
        figures.documentResidentMebibytes = mebibytes
        let merged: TextCRDT
        switch built {
        case let .success(document):
            merged = document
        case let .failure(error):
            figures.errors.append(error.description)
            return nil
        }
        figures.isTextCorrect = check(merged.string, against: trace.endContent, "the merged text", into: &figures)
        if !figures.isTextCorrect { figures.divergentTransaction = Replay.firstNonConvergentTransaction(trace) }
        do throws(ReplayError) {
            let replay = try Measure.medianMilliseconds(runs: runs) { () throws(ReplayError) in
                try Replay.concurrently(trace)
            }
            figures.replayMilliseconds = replay.milliseconds
            let merge = Measure.medianMilliseconds(runs: runs) {
                Replay.mergeAll(replay.firstResult.documents, replica: mergeReplica)
            }
            figures.mergeMilliseconds = merge.milliseconds
            let changes = replay.firstResult.documents.map { $0.changes(since: VersionVector()) }
            do throws(TextError) {
                let full = try Measure.medianMilliseconds(runs: runs) { () throws(TextError) in
                    var fresh = TextCRDT(replica: mergeReplica)
                    for delta in changes { try fresh.apply(delta) }
                    return fresh
                }
                figures.mergeFullMilliseconds = full.milliseconds
                if full.firstResult.string != trace.endContent { figures.errors.append("merge_full text differs") }
            } catch {
                figures.errors.append("merge_full: \(error)")
            }
        } catch {
            figures.errors.append(error.description)
        }
        if trace.hasSequentialForm { measureSequentialForm(trace, runs: runs, into: &figures) }
        return merged
    }

    /// Encodes `document`, times encoding and both kinds of decoding, checks the round trip, and
    /// measures the delta of one keystroke (typed by the document's own replica).
    private static func measureCodec(_ document: TextCRDT, runs: Int) -> CodecFigures? {
        let encode = Measure.medianMilliseconds(runs: runs) { document.encoded() }
        let bytes = encode.firstResult
        do throws(DecodingError) {
            let decode = try Measure.medianMilliseconds(runs: runs) { () throws(DecodingError) in
                try TextCRDT(decoding: bytes, replica: document.replica)
            }
            let decodeText = try Measure.medianMilliseconds(runs: runs) { () throws(DecodingError) in
                try TextCRDT.decodeString(fromEncoded: bytes)
            }
            let (_, decodedMebibytes) = Measure.documentResidentMebibytes {
                try? TextCRDT(decoding: bytes, replica: document.replica)
            }
            let decoded = decode.firstResult
            let roundTrips = decoded.string == document.string && decoded.version == document.version
                && decoded.encoded() == bytes && decodeText.firstResult == document.string
            // Keystrokes in the middle of the text: a first one, then one continuing it.
            var typing = document
            let middle = typing.lengthScalars / 2
            let start = typing.version
            try? typing.insert("x", atScalar: middle)
            let first = typing.changes(since: start).encoded().count
            let continuing = typing.version
            try? typing.insert("y", atScalar: middle + 1)
            let second = typing.changes(since: continuing).encoded().count
            return CodecFigures(
                encodedBytes: bytes.count, encodeMilliseconds: encode.milliseconds,
                decodeMilliseconds: decode.milliseconds, decodeTextMilliseconds: decodeText.milliseconds,
                decodedResidentMebibytes: decodedMebibytes, keystrokeDeltaBytes: second,
                firstKeystrokeDeltaBytes: first, roundTripsExactly: roundTrips)
        } catch {
            return nil
        }
    }

    /// Compares a replay's text with `endContent`; on a mismatch, records an error naming the
    /// first differing scalar offset with a short excerpt of both texts. Returns whether they match.
    private static func check(
        _ text: String, against expected: String, _ what: String, into figures: inout Figures
    ) -> Bool {
        if text == expected { return true }
        let actualScalars = Array(text.unicodeScalars)
        let expectedScalars = Array(expected.unicodeScalars)
        var offset = 0
        while offset < actualScalars.count && offset < expectedScalars.count
            && actualScalars[offset] == expectedScalars[offset]
        {
            offset += 1
        }
        func excerpt(_ scalars: [Unicode.Scalar]) -> String {
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars[offset..<min(scalars.count, offset + excerptScalars)])
            return String(view)
        }
        figures.errors.append(
            "\(what) (\(actualScalars.count) scalars) differs from endContent (\(expectedScalars.count) scalars) "
                + "from scalar \(offset): \(ReportValue.quoted(excerpt(actualScalars))) instead of "
                + "\(ReportValue.quoted(excerpt(expectedScalars)))")
        return false
    }

    /// How many scalars of each text a mismatch message quotes.
    private static let excerptScalars = 24

    /// The sequential replay again with deleted content kept: its state size, the stretch list,
    /// the text at 100 cuts spread over its life (checked at the half-way cut against a plain
    /// replay of the first half of the transactions, and at the end against the trace), a diff.
    private static func measureHistory(_ trace: Trace, runs: Int, into figures: inout Figures) -> HistoryFigures? {
        let timed: (firstResult: TextCRDT, milliseconds: Double)
        do throws(ReplayError) {
            timed = try Measure.medianMilliseconds(runs: runs) { () throws(ReplayError) in
                try Replay.onTextCRDT(trace, keepingDeletedContent: true)
            }
        } catch {
            figures.errors.append("history: \(error)")
            return nil
        }
        let document = timed.firstResult
        let encode = Measure.medianMilliseconds(runs: runs) { document.encoded() }
        let bytes = encode.firstResult
        let decode = Measure.medianMilliseconds(runs: runs) { try? TextCRDT(decoding: bytes, replica: document.replica) }
        if let decoded = decode.firstResult {
            if decoded.retainedDeletedScalars != document.retainedDeletedScalars || decoded.encoded() != bytes {
                figures.errors.append("history: the state decodes to other retained content")
            }
        } else {
            figures.errors.append("history: the state does not decode")
        }
        let list = Measure.medianMilliseconds(runs: runs) { document.stretches().map { document.cut(through: $0) } }
        let replica = ReplicaID(1)
        let cuts = (1...100).map { document.cut(lamport: document.lamport * UInt64($0) / 100, replica: replica) }
        var worst = 0.0
        for cut in cuts {
            let reading = Measure.medianMilliseconds(runs: runs) { try? document.string(at: cut) }
            worst = max(worst, reading.milliseconds)
            if reading.firstResult == nil { figures.errors.append("history: no text at \(cut)") }
        }
        if (try? document.string(at: cuts[99])) != trace.endContent { figures.errors.append("history: the text at the last cut differs") }
        if let half = try? Replay.onTextCRDT(trace, transactionCount: trace.transactions.count / 2),
            (try? document.string(at: half.version)) != half.string
        {
            figures.errors.append("history: the text half-way differs from a replay of the first half")
        }
        let diff = Measure.medianMilliseconds(runs: runs) { try? document.difference(from: cuts[24], to: cuts[74]) }
        if diff.firstResult == nil { figures.errors.append("history: no diff") }
        return HistoryFigures(
            encodedBytes: bytes.count, encodeMilliseconds: encode.milliseconds, decodeMilliseconds: decode.milliseconds,
            applyMilliseconds: timed.milliseconds, listMilliseconds: list.milliseconds,
            stretchCount: document.stretches().count, textAtMillisecondsMax: worst, diffMilliseconds: diff.milliseconds)
    }
}
