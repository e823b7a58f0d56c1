/// The page `memo-sim --report DIR` writes beside measurements.json (issue 30): one
/// self-contained HTML file, no scripts, inline SVG only. Every number it draws is one of the
/// JSON's, written as it is there (integers) and also carried in `data-*` attributes, so a test
/// (and a reader) can compare the two. Each `<svg>` element is well-formed XML on its own.
public enum MeasurementReport {
    /// The page for `file`.
    public static func html(_ file: MeasurementFile) -> String {
        let totals = file.totals
        let seedList = file.seeds.map(\.seed)
        let range = seedList.isEmpty ? "no seeds" : seedList.count == 1 ? "seed \(seedList[0])" : "seeds \(seedList.first!)..\(seedList.last!) (\(seedList.count))"
        var page = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"/><title>memo-sim report: \(escape(range))</title>
            <style>
            body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
            table { border-collapse: collapse; margin: 1em 0; }
            td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: right; }
            th { background: #f0f0f0; } .fail { color: #b00; font-weight: bold; } .ok { color: #070; }
            svg { border: 1px solid #ddd; margin: 0.5em 0; background: #fff; }
            .legend span { display: inline-block; margin-right: 1.5em; }
            .swatch { display: inline-block; width: 12px; height: 12px; vertical-align: middle; margin-right: 4px; }
            </style></head><body>
            <h1>memo-sim report: \(escape(range))</h1>
            <p>Options: <code>\(escape(file.options.isEmpty ? "(defaults)" : file.options))</code>.
            Figures in simulated milliseconds and bytes; the same numbers are in measurements.json.</p>

            """
        page += verdicts(file, totals)
        page += "<h2>Arrival latency</h2>\n<p>From each edit (or the receiving replica's start, if later) to its arrival at each other replica before the final phase, over every seed. Arrivals in the final phase (where every replica syncs until quiet and time jumps past skewed clocks and grace periods) are counted apart.</p>\n"
        page += histogram(totals.arrival)
        page += "<h2>The store over time</h2>\n<p>Ground truth, sampled at the start of every interval; one line per seed.</p>\n"
        page += storeChart(file.seeds, title: "blobs", maximum: totals.storeBlobsMax, value: \.blobs)
        page += storeChart(file.seeds, title: "bytes", maximum: totals.storeBytesMax, value: \.bytes)
        if let first = file.seeds.first, first.replicas.contains(where: { !$0.samples.isEmpty }) {
            page += "<h2>Replicas over time (seed \(first.seed))</h2>\n<p>Sampled with the store; one line per replica. Held back: operations a library keeps until what they depend on arrives (0 while the replica is not running). Library: its files' bytes on the simulated disk (0 for the notebook engine).</p>\n"
            page += replicaChart(first, title: "heldBack", label: "operations held back", value: \.heldBack, names: file.replicaNames)
            page += replicaChart(first, title: "libraryBytes", label: "library bytes", value: \.libraryBytes, names: file.replicaNames)
        }
        if file.isCompact {
            page += "<p>Compact measurements (<code>--compact</code>): no timelines or samples, latencies rounded up to four significant digits.</p>\n"
        } else if let first = file.seeds.first {
            page += "<h2>Timeline of seed \(first.seed)</h2>\n"
            page += timeline(first, names: file.replicaNames)
        }
        page += "</body></html>\n"
        return page
    }

    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }

    static func verdicts(_ file: MeasurementFile, _ totals: MeasurementTotals) -> String {
        var html = "<h2>Invariants</h2>\n"
        html += totals.failures == 0
            ? "<p class=\"ok\">Every invariant held in all \(totals.seeds) seeds.</p>\n"
            : "<p class=\"fail\">\(totals.failures) of \(totals.seeds) seeds broke an invariant.</p>\n"
        html += "<table><tr><th>seed</th><th>verdict</th><th>hash</th><th>simulated ms</th><th>edits</th><th>lost</th><th>arrivals</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>max ms</th><th>final phase</th><th>never arrived</th><th>store blobs</th><th>store bytes</th><th>snapshots written</th><th>collected</th></tr>\n"
        for seed in file.seeds {
            let a = seed.arrival
            html += "<tr><td>\(seed.seed)</td><td class=\"\(seed.verdict == "ok" ? "ok" : "fail")\">\(escape(seed.verdict))</td><td>\(escape(seed.hash))</td>"
                + "<td>\(seed.simulatedMilliseconds)</td><td>\(seed.edits)</td><td>\(seed.editsLost)</td><td>\(a.count)</td><td>\(a.p50)</td><td>\(a.p90)</td><td>\(a.p99)</td><td>\(a.max)</td><td>\(a.arrivedInFinalPhase)</td><td>\(a.neverArrived)</td>"
                + "<td>\(seed.storeBlobs)</td><td>\(seed.storeBytes)</td><td>\(seed.snapshotsWritten)</td><td>\(seed.snapshotsCollected)</td></tr>\n"
        }
        let a = totals.arrival
        html += "<tr><th>all</th><th>\(totals.failures) failed</th><th></th><th></th><th>\(totals.edits)</th><th>\(totals.editsLost)</th><th>\(a.count)</th><th>\(a.p50)</th><th>\(a.p90)</th><th>\(a.p99)</th><th>\(a.max)</th><th>\(a.arrivedInFinalPhase)</th><th>\(a.neverArrived)</th><th>max \(totals.storeBlobsMax)</th><th>max \(totals.storeBytesMax)</th><th>\(totals.snapshotsWritten)</th><th>\(totals.snapshotsCollected)</th></tr>\n</table>\n"
        html += "<table><tr>"
        for key in ReplicaMeasurements.counterKeys { html += "<th>\(key)</th>" }
        html += "</tr>\n<tr>"
        for value in totals.replicaSums { html += "<td>\(value)</td>" }
        html += "</tr></table>\n<p>Summed over every replica of every seed.</p>\n"
        return html
    }

    /// The arrival-latency histogram: a bar per bucket, its count above it.
    static func histogram(_ arrival: ArrivalSummary) -> String {
        let width = 760, height = 270, left = 50, bottom = 40, top = 50
        let barSlot = (width - left - 10) / arrival.histogram.count
        let highest = max(1, arrival.histogram.max() ?? 1)
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"latency\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\">\n"
        svg += "<text x=\"\(left)\" y=\"16\" font-size=\"13\">arrivals <tspan data-key=\"count\">\(arrival.count)</tspan>; p50 <tspan data-key=\"p50Milliseconds\">\(arrival.p50)</tspan> ms; p90 <tspan data-key=\"p90Milliseconds\">\(arrival.p90)</tspan> ms; p99 <tspan data-key=\"p99Milliseconds\">\(arrival.p99)</tspan> ms; max <tspan data-key=\"maxMilliseconds\">\(arrival.max)</tspan> ms</text>\n"
            + "<text x=\"\(left)\" y=\"32\" font-size=\"13\">only in the final phase <tspan data-key=\"arrivedInFinalPhase\">\(arrival.arrivedInFinalPhase)</tspan>; never arrived <tspan data-key=\"neverArrived\">\(arrival.neverArrived)</tspan></text>\n"
        let plotHeight = height - bottom - top
        for (index, count) in arrival.histogram.enumerated() {
            let barHeight = count * plotHeight / highest
            let x = left + index * barSlot + 4
            let y = top + plotHeight - barHeight
            svg += "<rect class=\"bar\" data-label=\"\(escape(ArrivalSummary.bucketLabels[index]))\" data-count=\"\(count)\" x=\"\(x)\" y=\"\(y)\" width=\"\(barSlot - 8)\" height=\"\(barHeight)\" fill=\"#4a78b5\"/>\n"
            svg += "<text x=\"\(x + (barSlot - 8) / 2)\" y=\"\(y - 4)\" font-size=\"11\" text-anchor=\"middle\">\(count)</text>\n"
            svg += "<text x=\"\(x + (barSlot - 8) / 2)\" y=\"\(height - bottom + 16)\" font-size=\"11\" text-anchor=\"middle\">\(escape(ArrivalSummary.bucketLabels[index]))</text>\n"
        }
        svg += "<line x1=\"\(left)\" y1=\"\(top + plotHeight)\" x2=\"\(width - 10)\" y2=\"\(top + plotHeight)\" stroke=\"#444\"/>\n</svg>\n"
        return svg
    }

    static let seedColours = ["#4a78b5", "#c0504d", "#9bbb59", "#8064a2", "#f79646", "#4bacc6", "#7f7f7f", "#2c4d75"]

    /// The store's blobs or bytes over time, a line per seed; the axis ends at the highest value.
    static func storeChart(_ seeds: [SeedMeasurements], title: String, maximum: Int, value: KeyPath<StoreSample, Int>) -> String {
        let width = 760, height = 240, left = 90, right = 10, top = 24, bottom = 30
        let plot = LinePlot(width: width, height: height, left: left, right: right, top: top, bottom: bottom,
            end: max(1, seeds.map { $0.storeSamples.last?.time ?? 0 }.max() ?? 1), maximum: maximum)
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"store-\(title)\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\">\n"
        svg += "<text x=\"4\" y=\"16\" font-size=\"13\">store \(title), max <tspan data-key=\"\(title)Max\">\(maximum)</tspan></text>\n"
        svg += plot.frame()
        for (index, seed) in seeds.enumerated() {
            let points = plot.points(seed.storeSamples.map { ($0.time, $0[keyPath: value]) })
            let peak = seed.storeSamples.map { $0[keyPath: value] }.max() ?? 0
            svg += "<polyline data-seed=\"\(seed.seed)\" data-max=\"\(peak)\" fill=\"none\" stroke=\"\(seedColours[index % seedColours.count])\" stroke-width=\"1.5\" points=\"\(points.joined(separator: " "))\"/>\n"
        }
        svg += "</svg>\n"
        return svg
    }

    /// One replica sample over time, a line per replica of `seed`; the axis ends at the
    /// highest value any replica reached (in `data-max` of the chart, and of each line).
    /// A replica's label: `r0`, with the scenario's name when it has one (`r0 phone`; a name
    /// longer than 10 characters is cut, with "…": the JSON has it whole).
    static func label(_ replica: Int, _ names: [String]) -> String {
        guard replica < names.count else { return "r\(replica)" }
        let name = names[replica]
        return "r\(replica) " + escape(name.count > 10 ? String(name.prefix(9)) + "…" : name)
    }

    static func replicaChart(_ seed: SeedMeasurements, title: String, label: String, value: KeyPath<ReplicaSample, Int>, names: [String] = []) -> String {
        let width = 760, height = 240, left = 90, right = 70, top = 24, bottom = 30
        let maximum = seed.replicas.flatMap { $0.samples.map { $0[keyPath: value] } }.max() ?? 0
        let plot = LinePlot(width: width, height: height, left: left, right: right, top: top, bottom: bottom,
            end: max(1, seed.replicas.compactMap { $0.samples.last?.time }.max() ?? 1), maximum: maximum)
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"replica-\(title)\" data-max=\"\(maximum)\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\">\n"
        svg += "<text x=\"4\" y=\"16\" font-size=\"13\">\(escape(label)) per replica, max <tspan data-key=\"replica-\(title)Max\">\(maximum)</tspan></text>\n"
        svg += plot.frame()
        for (index, replica) in seed.replicas.enumerated() {
            let points = plot.points(replica.samples.map { ($0.time, $0[keyPath: value]) })
            let peak = replica.samples.map { $0[keyPath: value] }.max() ?? 0
            let colour = seedColours[index % seedColours.count]
            svg += "<polyline class=\"replica\" data-replica=\"\(replica.replica)\" data-max=\"\(peak)\" data-values=\"\(replica.samples.map { String($0[keyPath: value]) }.joined(separator: " "))\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1.5\" points=\"\(points.joined(separator: " "))\"/>\n"
            if index < 14 { svg += "<text x=\"\(width - right + 4)\" y=\"\(top + 12 + index * 13)\" font-size=\"11\" fill=\"\(colour)\">\(Self.label(replica.replica, names))</text>\n" }
        }
        svg += "</svg>\n"
        return svg
    }

    /// Where a line chart's plot is, and the frame and points of its lines: time from 0 ms at
    /// the left to `end` ms at the right, values from 0 at the bottom to `maximum` at the top.
    struct LinePlot {
        var width: Int, height: Int, left: Int, right: Int, top: Int, bottom: Int
        var end: Int
        var maximum: Int

        var plotWidth: Int { width - left - right }
        var plotHeight: Int { height - top - bottom }

        /// The axis labels (the maximum and 0, 0 ms and the end) and the plot's border.
        func frame() -> String {
            var svg = "<text x=\"\(left - 4)\" y=\"\(top + 10)\" font-size=\"11\" text-anchor=\"end\">\(maximum)</text>\n"
            svg += "<text x=\"\(left - 4)\" y=\"\(top + plotHeight)\" font-size=\"11\" text-anchor=\"end\">0</text>\n"
            svg += "<text x=\"\(left)\" y=\"\(height - 8)\" font-size=\"11\">0 ms</text>\n"
            svg += "<text x=\"\(width - right)\" y=\"\(height - 8)\" font-size=\"11\" text-anchor=\"end\">\(end) ms</text>\n"
            svg += "<rect x=\"\(left)\" y=\"\(top)\" width=\"\(plotWidth)\" height=\"\(plotHeight)\" fill=\"none\" stroke=\"#ccc\"/>\n"
            return svg
        }

        /// A polyline's points ("x,y") for samples of (time in ms, value).
        func points(_ samples: [(time: Int, value: Int)]) -> [String] {
            let highest = Int64(max(1, maximum))
            return samples.map { sample in
                let x = left + Int(Int64(sample.time) * Int64(plotWidth) / Int64(end))
                let y = top + plotHeight - Int(Int64(sample.value) * Int64(plotHeight) / highest)
                return "\(x),\(y)"
            }
        }
    }

    static let kindColours: [(kind: String, colour: String)] = [
        ("offline", "#8c8c8c"), ("store-full", "#e6a0a0"), ("down", "#c0504d"), ("sync", "#4a78b5"), ("sync-cut", "#f79646"),
    ]

    /// A row per replica: offline and down stretches, syncs, edit ticks, fault markers.
    static func timeline(_ seed: SeedMeasurements, names: [String] = []) -> String {
        let rowHeight = 24, right = 10, top = 20
        let left = names.isEmpty ? 50 : 110
        let width = 1000
        let plotWidth = width - left - right
        let end = max(1, seed.simulatedMilliseconds)
        let height = top + rowHeight * seed.replicas.count + 30
        func x(_ time: Int) -> Int { left + Int(Int64(min(time, end)) * Int64(plotWidth) / Int64(end)) }
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"timeline\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\">\n"
        svg += "<text x=\"\(left)\" y=\"14\" font-size=\"12\">0 ms to <tspan data-key=\"simulatedMilliseconds\">\(seed.simulatedMilliseconds)</tspan> ms</text>\n"
        for (row, replica) in seed.replicas.enumerated() {
            let y = top + row * rowHeight
            svg += "<g data-replica=\"\(replica.replica)\" data-edits=\"\(replica.edits)\" data-syncs=\"\(replica.syncs)\" data-crashes=\"\(replica.crashes)\">\n"
            svg += "<text x=\"4\" y=\"\(y + 15)\" font-size=\"12\">\(Self.label(replica.replica, names))</text>\n"
            svg += "<line x1=\"\(left)\" y1=\"\(y + 11)\" x2=\"\(width - right)\" y2=\"\(y + 11)\" stroke=\"#eee\"/>\n"
            for (kind, colour) in kindColours {
                for entry in replica.timeline where entry.kind == kind {
                    let from = x(entry.from)
                    let size = max(1, x(entry.to) - from)
                    // Offline and store-full stretches are strips under the row; crashes and
                    // syncs are drawn on it.
                    let (top, size2) = kind == "offline" ? (16, 5) : kind == "store-full" ? (8, 3) : kind == "down" ? (4, 12) : (7, 8)
                    svg += "<rect class=\"\(kind)\" x=\"\(from)\" y=\"\(y + top)\" width=\"\(size)\" height=\"\(size2)\" fill=\"\(colour)\"><title>\(kind) \(entry.from)-\(entry.to) ms</title></rect>\n"
                }
            }
            for entry in replica.timeline where entry.kind == "edit" {
                svg += "<line class=\"edit\" x1=\"\(x(entry.from))\" y1=\"\(y + 2)\" x2=\"\(x(entry.from))\" y2=\"\(y + 6)\" stroke=\"#333\"/>\n"
            }
            let drawn = Set(kindColours.map(\.kind) + ["edit"])
            for entry in replica.timeline where !drawn.contains(entry.kind) {
                let at = x(entry.from)
                svg += "<path class=\"\(entry.kind)\" d=\"M\(at) \(y + 20) l-4 -6 l8 0 z\" fill=\"#8064a2\"><title>\(entry.kind) at \(entry.from) ms</title></path>\n"
            }
            svg += "</g>\n"
        }
        svg += "</svg>\n"
        svg += "<p class=\"legend\">"
        for (kind, colour) in kindColours { svg += "<span><span class=\"swatch\" style=\"background:\(colour)\"></span>\(kind)</span>" }
        svg += "<span>| edit (tick above the row)</span><span>&#9660; join, leave, restore-backup, clock-jump, store-loss, key-blob</span></p>\n"
        return svg
    }
}

extension MeasurementReport {
    /// The page of a sweep (`--sweep KEY=V1,V2,...`): the measures of each value side by side,
    /// each linking to its own report (`KEY=VALUE/index.html`). The numbers are the totals of
    /// each value's measurements.json.
    public static func sweepHTML(key: String, runs: [(label: String, file: MeasurementFile)]) -> String {
        var page = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"/><title>memo-sim sweep: \(escape(key))</title>
            <style>
            body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
            table { border-collapse: collapse; margin: 1em 0; }
            td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: right; }
            th { background: #f0f0f0; } svg { border: 1px solid #ddd; background: #fff; }
            </style></head><body>
            <h1>memo-sim sweep: \(escape(key))</h1>

            """
        if let first = runs.first {
            page += "<p>Options: <code>\(escape(first.file.options))</code>; seeds \(first.file.seeds.map { String($0.seed) }.joined(separator: ", ")).</p>\n"
        }
        page += "<table><tr><th>\(escape(key))</th><th>seeds</th><th>failures</th><th>arrivals</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>max ms</th><th>final phase</th><th>never arrived</th><th>syncs</th><th>bytes read</th><th>bytes written</th><th>store blobs max</th><th>store bytes max</th></tr>\n"
        let syncs = ReplicaMeasurements.counterKeys.firstIndex(of: "syncs")!
        let read = ReplicaMeasurements.counterKeys.firstIndex(of: "bytesRead")!
        let written = ReplicaMeasurements.counterKeys.firstIndex(of: "bytesWritten")!
        for run in runs {
            let t = run.file.totals
            let a = t.arrival
            page += "<tr><td><a href=\"\(escape(key))=\(escape(run.label))/index.html\">\(escape(run.label))</a></td><td>\(t.seeds)</td><td>\(t.failures)</td><td>\(a.count)</td><td>\(a.p50)</td><td>\(a.p90)</td><td>\(a.p99)</td><td>\(a.max)</td><td>\(a.arrivedInFinalPhase)</td><td>\(a.neverArrived)</td>"
                + "<td>\(t.replicaSums[syncs])</td><td>\(t.replicaSums[read])</td><td>\(t.replicaSums[written])</td><td>\(t.storeBlobsMax)</td><td>\(t.storeBytesMax)</td></tr>\n"
        }
        page += "</table>\n<h2>Arrival latency by \(escape(key))</h2>\n"
        // Grouped bars: p50, p90, p99 of each value, on one linear axis up to the largest p99.
        let width = 760, height = 280, left = 60, top = 30, bottom = 40
        let plotHeight = height - top - bottom
        let highest = max(1, runs.map { $0.file.totals.arrival.p99 }.max() ?? 1)
        let slot = runs.isEmpty ? 1 : (width - left - 10) / runs.count
        let colours = ["#9bbb59", "#4a78b5", "#c0504d"]
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"sweep\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\">\n"
        svg += "<text x=\"4\" y=\"16\" font-size=\"12\">p50 (green), p90 (blue), p99 (red), ms; axis up to \(highest) ms</text>\n"
        for (index, run) in runs.enumerated() {
            let a = run.file.totals.arrival
            let bar = max(1, (slot - 16) / 3)
            svg += "<g data-label=\"\(escape(run.label))\">\n"
            for (which, value) in [a.p50, a.p90, a.p99].enumerated() {
                let barHeight = Int(Int64(value) * Int64(plotHeight) / Int64(highest))
                let x = left + index * slot + 8 + which * bar
                svg += "<rect data-value=\"\(value)\" x=\"\(x)\" y=\"\(top + plotHeight - barHeight)\" width=\"\(bar - 2)\" height=\"\(barHeight)\" fill=\"\(colours[which])\"><title>\(value) ms</title></rect>\n"
            }
            svg += "<text x=\"\(left + index * slot + slot / 2)\" y=\"\(height - bottom + 16)\" font-size=\"12\" text-anchor=\"middle\">\(escape(run.label))</text>\n</g>\n"
        }
        svg += "<line x1=\"\(left)\" y1=\"\(top + plotHeight)\" x2=\"\(width - 10)\" y2=\"\(top + plotHeight)\" stroke=\"#444\"/>\n</svg>\n"
        page += svg + "</body></html>\n"
        return page
    }
}
