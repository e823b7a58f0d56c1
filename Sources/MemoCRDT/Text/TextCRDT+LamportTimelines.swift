extension TextCRDT {
    /// The Lamport runs of many texts at once (a notebook state's memos, in order: each text's
    /// ``BodyLamportRuns``), in flat arrays: per text its lanes (one per replica with
    /// operations, in replica id order), per lane its Lamport runs. What a notebook decoder hands its history check
    /// (`Notebook.checkHistoryApplies`).
    ///
    /// A notebook of 100,000 memos made a few small arrays per memo for its timelines and as
    /// many again for the check that reads them; allocating and freeing them was about a third
    /// of opening it (BENCHMARKS.md, "Reads without zeroing, and the history check in flat
    /// arrays"). Here they are six arrays in all.
    package struct LamportTimelines: Sendable {
        /// The lanes of text `t` are `laneStarts[t] ..< laneStarts[t + 1]`.
        package private(set) var laneStarts: [Int] = [0]
        /// Each lane's replica, and how many text operations it has in the text.
        package private(set) var laneReplicas: [ReplicaID] = []
        package private(set) var laneOperationCounts: [UInt32] = []
        /// The runs of lane `l` are `runStarts[l] ..< runStarts[l + 1]`.
        package private(set) var runStarts: [Int] = [0]
        /// Each run's first operation counter, and the Lamport timestamp there (rising by one
        /// per operation until the lane's next run).
        package private(set) var runCounters: [UInt32] = []
        package private(set) var runLamports: [UInt64] = []
        /// The arrays each body's walk uses, kept from one text to the next (not part of the
        /// timelines: see ``TextCRDT/WalkBuffers``).
        var walkBuffers = WalkBuffers()

        /// No text yet; room for `textCount` texts (the lanes and runs grow as they come).
        package init(reservingTexts textCount: Int = 0) {
            laneStarts.reserveCapacity(textCount + 1)
        }

        /// How many texts were added.
        package var textCount: Int { laneStarts.count - 1 }

        /// The lanes of text `text`.
        package func lanes(ofText text: Int) -> Range<Int> { laneStarts[text]..<laneStarts[text + 1] }

        /// The runs of lane `lane`.
        package func runs(ofLane lane: Int) -> Range<Int> { runStarts[lane]..<runStarts[lane + 1] }

        /// Adds a text with the Lamport runs `body` (nil: none); a replica without runs gets no
        /// lane.
        mutating func appendText(_ body: BodyLamportRuns?) {
            let (replicas, operationCounts, runs) = body ?? ([], [], [])
            for ((replica, count), replicaRuns) in zip(zip(replicas, operationCounts), runs) where !replicaRuns.isEmpty {
                laneReplicas.append(replica)
                laneOperationCounts.append(count)
                for run in replicaRuns {
                    runCounters.append(run.counter)
                    runLamports.append(run.lamport)
                }
                runStarts.append(runCounters.count)
            }
            laneStarts.append(laneReplicas.count)
        }
    }

    /// ``summary(ofBody:range:version:)``, adding the body's Lamport runs as the next text of
    /// `timelines` (one text; none when it throws).
    package static func summary(
        ofBody bytes: [UInt8], range bodyRange: Range<Int>, version bodyVersion: UInt8, timelines: inout LamportTimelines
    ) throws(DecodingError) -> (
        text: Range<Int>, version: VersionVector, insertionVersion: VersionVector, lamport: UInt64
    ) {
        let (summary, runs) = try summary(
            ofBody: bytes, range: bodyRange, version: bodyVersion, derivingLamportRuns: true, buffers: &timelines.walkBuffers)
        timelines.appendText(runs)
        // The runs are copied into the timelines' flat arrays: their arrays serve the next body.
        if let runs { timelines.walkBuffers.lamportRuns = runs.runs }
        return summary
    }
}
