import Foundation

/// The worked examples of FORMAT.md ("Worked examples"), by name: the bytes of the block after
/// each `<!-- example: NAME -->` line, read from the leading groups of two hex digits of each of
/// its lines (what follows them on a line is the explanation).
public func formatExamples(filePath: String = #filePath) throws -> [String: [UInt8]] {
    var folder = URL(fileURLWithPath: filePath).deletingLastPathComponent()
    // Up from the calling test's folder to the package root, where FORMAT.md is.
    for _ in 0..<4 where !FileManager.default.fileExists(atPath: folder.appendingPathComponent("FORMAT.md").path) {
        folder.deleteLastPathComponent()
    }
    let document = try String(contentsOf: folder.appendingPathComponent("FORMAT.md"), encoding: .utf8)
    var examples: [String: [UInt8]] = [:]
    var name: String?
    var inBlock = false
    var bytes: [UInt8] = []
    for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("<!-- example: "), let end = line.range(of: " -->") {
            name = String(line[line.index(line.startIndex, offsetBy: 14)..<end.lowerBound])
        } else if line.hasPrefix("```") && name != nil {
            if inBlock, let finished = name {
                examples[finished] = bytes
                name = nil
                bytes = []
            }
            inBlock.toggle()
        } else if inBlock {
            for token in line.split(separator: " ", omittingEmptySubsequences: true) {
                guard token.count == 2, let byte = UInt8(token, radix: 16) else { break }
                bytes.append(byte)
            }
        }
    }
    return examples
}
