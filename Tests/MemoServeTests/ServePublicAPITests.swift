// SERVE.md and the DocC guide ("Embedding in a notes app") say `memo serve` is built on the
// engine's public API, and name what it uses beyond it: `Replica.shareFolder()`,
// `Replica.refreshFromSharedFolder`, `Replica.saveNow()` and `Replica.closeNow()`. Every
// `replica.NAME` in MemoServe's sources whose NAME the replica declares as package API only
// (not also public) must be one of those, and each must be named in both documents.

import Foundation
import Testing

@Suite("memo serve uses the package API it documents, and no other")
struct ServePublicAPITests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func sources(in folder: String) throws -> String {
        let url = Self.root.appendingPathComponent(folder)
        return try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".swift") }.sorted()
            .map { try String(contentsOf: url.appendingPathComponent($0), encoding: .utf8) }.joined(separator: "\n")
    }

    private func names(_ pattern: String, in text: String) throws -> Set<String> {
        let expression = try NSRegularExpression(pattern: pattern)
        return Set(expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        })
    }

    @Test("the package API memo serve uses is the documented list")
    func thePackageAPIUsedIsTheDocumentedList() throws {
        let replica = try sources(in: "Sources/MemoSync/Replica")
        let package = try names(#"package (?:func|var|static func) ([A-Za-z_]+)"#, in: replica)
        let publicNames = try names(#"public (?:func|var|static func) ([A-Za-z_]+)"#, in: replica)
        #expect(package.contains("saveNow") && publicNames.contains("save"), "the scan reads the declarations")
        let used = try names(#"replica\??\.([A-Za-z_]+)"#, in: try sources(in: "Sources/MemoServe"))
        let documented: Set<String> = ["shareFolder", "refreshFromSharedFolder", "saveNow", "closeNow"]
        #expect(used.intersection(package.subtracting(publicNames)) == documented, "\(used.intersection(package.subtracting(publicNames)).sorted())")
        let serve = try String(contentsOf: Self.root.appendingPathComponent("SERVE.md"), encoding: .utf8)
        for name in documented { #expect(serve.contains("Replica.\(name)"), "SERVE.md does not name \(name)") }
        let guide = try String(
            contentsOf: Self.root.appendingPathComponent("Sources/MemoSync/MemoSync.docc/EmbeddingInANotesApp.md"), encoding: .utf8)
        #expect(guide.contains("SERVE.md") && guide.contains("synchronous forms"))
    }
}
