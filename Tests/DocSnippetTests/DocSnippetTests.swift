import Foundation
import Testing

/// Issue 29: every ```swift block of README.md and the DocC catalogs (`Sources/*/*.docc/**/*.md`)
/// compiles, so the docs cannot drift from the API again.
///
/// The blocks are compiled as the files in `Snippets/` of this target, which depends only on the
/// public modules an app imports (no `@testable`). This test reads the docs and checks that each
/// block appears in those files verbatim (lines compared after removing the block's common
/// indentation and trailing spaces), so a doc edit that is not made in the snippets too fails
/// here, and a snippet that no longer compiles fails the build. A block's leading `import` lines
/// must be lines of the same file (imports are at file scope; the rest of a block of statements
/// sits inside a function).
///
/// Exceptions are counted and named, never skipped silently:
/// - blocks whose snippet sits inside `#if canImport(SwiftUI)`, `UIKit` or `AppKit` compile on
///   Apple platforms only (the test command runs on Linux);
/// - a block marked in its doc by an HTML comment `<!-- not compiled: REASON -->` on the line
///   before its fence is not looked for (pseudo-code, a fragment). There are none today.
@Suite struct DocSnippetTests {
    /// Blocks that compile only where these modules exist: the UIKit and AppKit text views, the
    /// SwiftUI list, sync status and scene of "Embedding MemoSync in a notes app".
    static let expectedApplePlatformOnly = 5
    /// Blocks marked `<!-- not compiled: ... -->`.
    static let expectedNotCompiled = 0

    @Test func everySwiftBlockInTheDocsIsACompiledSnippet() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let docs = try DocBlocks.documents(root: root)
        #expect(docs.contains { $0.hasSuffix("README.md") })
        #expect(docs.filter { $0.contains(".docc/") }.count >= 6, "\(docs)")
        var blocks: [DocBlocks.Block] = []
        for doc in docs {
            let text = try String(contentsOf: root.appendingPathComponent(doc), encoding: .utf8)
            blocks += try DocBlocks.swiftBlocks(in: text, document: doc)
        }
        let snippets = try DocBlocks.snippetFiles(folder: root.appendingPathComponent("Tests/DocSnippetTests/Snippets"))
        #expect(snippets.count >= 10)

        // README has 3, the catalogs 22 (issue 29): fewer means the extraction broke.
        #expect(blocks.count >= 25, "found \(blocks.count) ```swift blocks")
        var missing: [String] = []
        var applePlatformOnly: [String] = []
        var notCompiled: [String] = []
        var compiled = 0
        for block in blocks {
            if let reason = block.notCompiledReason {
                notCompiled.append("\(block.location): \(reason)")
                continue
            }
            guard let match = DocBlocks.find(block, in: snippets) else {
                missing.append(block.location)
                continue
            }
            if let condition = match.applePlatformCondition {
                applePlatformOnly.append("\(block.location) (\(match.file), under #if \(condition))")
            } else {
                compiled += 1
            }
        }
        print("DocSnippetTests: \(blocks.count) ```swift blocks in \(docs.count) documents: \(compiled) compiled here, "
            + "\(applePlatformOnly.count) on Apple platforms only, \(notCompiled.count) marked not compiled")
        for location in applePlatformOnly { print("  Apple platforms only: \(location)") }
        for location in notCompiled { print("  not compiled: \(location)") }
        #expect(missing.isEmpty, """
            these ```swift blocks are not in Tests/DocSnippetTests/Snippets (verbatim): \(missing). \
            Change the snippet with the doc (so it compiles), or mark the block <!-- not compiled: REASON -->.
            """)
        #expect(applePlatformOnly.count == Self.expectedApplePlatformOnly, "\(applePlatformOnly)")
        #expect(notCompiled.count == Self.expectedNotCompiled, "\(notCompiled)")
        #expect(compiled >= 19)
    }

    /// The checker itself: a changed line, an import the file lacks, a marked block, indentation.
    @Test func theCheckerFindsWhatIsMissing() throws {
        let markdown = """
            Text.

            ```swift
            import MemoSync

            let a = 1
            ```

              ```swift
              let b = 2
                  .description
              ```

            ```swift
            let a = 2
            ```

            ```swift
            import Missing
            let a = 1
            ```

            <!-- not compiled: a fragment -->
            ```swift
            a +
            ```

            ```sh
            echo not swift
            ```
            """
        let blocks = try DocBlocks.swiftBlocks(in: markdown, document: "test.md")
        #expect(blocks.count == 5)
        #expect(blocks.map(\.notCompiledReason) == [nil, nil, nil, nil, "a fragment"])
        let files = [
            DocBlocks.SnippetFile(name: "one.swift", lines: [
                "import MemoSync", "", "func f() {", "    let a = 1", "}",
            ]),
            DocBlocks.SnippetFile(name: "two.swift", lines: [
                "#if canImport(SwiftUI)", "func g() {", "        let b = 2", "            .description", "}", "#endif",
            ]),
        ]
        #expect(DocBlocks.find(blocks[0], in: files)?.file == "one.swift")
        #expect(DocBlocks.find(blocks[0], in: files)?.applePlatformCondition == nil)
        #expect(DocBlocks.find(blocks[1], in: files)?.applePlatformCondition == "canImport(SwiftUI)")
        #expect(DocBlocks.find(blocks[2], in: files) == nil)     // a changed line
        #expect(DocBlocks.find(blocks[3], in: files) == nil)     // an import the file lacks
        #expect(throws: DocBlocks.Failure.self) { try DocBlocks.swiftBlocks(in: "```swift\nlet a = 1\n", document: "open.md") }
    }
}

/// Reading ```swift blocks out of markdown, and finding them in the snippet sources.
enum DocBlocks {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// One ```swift block: its lines without their common indentation.
    struct Block {
        var document: String
        var line: Int
        var lines: [String]
        /// The reason of a `<!-- not compiled: REASON -->` comment on the line before the fence.
        var notCompiledReason: String?

        var location: String { "\(document):\(line)" }
    }

    struct SnippetFile {
        var name: String
        var lines: [String]
    }

    struct Match {
        var file: String
        /// The `canImport(SwiftUI|UIKit|AppKit)` condition of an `#if` around the match, if any.
        var applePlatformCondition: String?
    }

    /// README.md and every markdown file of the DocC catalogs, relative to `root`, sorted.
    static func documents(root: URL) throws -> [String] {
        var found = ["README.md"]
        let sources = root.appendingPathComponent("Sources")
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let moduleFolder = sources.appendingPathComponent(module)
            for entry in try FileManager.default.contentsOfDirectory(atPath: moduleFolder.path) where entry.hasSuffix(".docc") {
                guard let walk = FileManager.default.enumerator(atPath: moduleFolder.appendingPathComponent(entry).path) else {
                    throw Failure(description: "cannot read \(module)/\(entry)")
                }
                while let file = walk.nextObject() as? String {
                    if file.hasSuffix(".md") { found.append("Sources/\(module)/\(entry)/\(file)") }
                }
            }
        }
        return found.sorted()
    }

    static func snippetFiles(folder: URL) throws -> [SnippetFile] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }.sorted().map { name in
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            return SnippetFile(name: name, lines: text.components(separatedBy: "\n"))
        }
    }

    static func swiftBlocks(in markdown: String, document: String) throws(Failure) -> [Block] {
        let lines = markdown.components(separatedBy: "\n")
        var blocks: [Block] = []
        var index = 0
        while index < lines.count {
            let fence = lines[index].trimmingCharacters(in: .whitespaces)
            guard fence.hasPrefix("```") else {
                index += 1
                continue
            }
            let language = fence.dropFirst(3).trimmingCharacters(in: .whitespaces)
            guard let end = lines[(index + 1)...].firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "```" }) else {
                throw Failure(description: "\(document):\(index + 1): a ``` block that does not end")
            }
            if language == "swift" {
                var reason: String?
                if let previous = lines[..<index].last(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) {
                    let comment = previous.trimmingCharacters(in: .whitespaces)
                    if comment.hasPrefix("<!-- not compiled:"), comment.hasSuffix("-->") {
                        reason = String(comment.dropFirst("<!-- not compiled:".count).dropLast(3)).trimmingCharacters(in: .whitespaces)
                    }
                }
                blocks.append(Block(document: document, line: index + 1, lines: dedented(Array(lines[(index + 1)..<end])), notCompiledReason: reason))
            }
            index = end + 1
        }
        return blocks
    }

    /// The file and place where `block` appears: its leading imports as lines of the file, the
    /// rest as consecutive lines (compared without their common indentation).
    static func find(_ block: Block, in files: [SnippetFile]) -> Match? {
        var body = block.lines[...]
        var imports: [String] = []
        while let first = body.first, first.hasPrefix("import ") || (first.isEmpty && !imports.isEmpty) {
            if !first.isEmpty { imports.append(first) }
            body = body.dropFirst()
        }
        for file in files {
            let trimmed = file.lines.map(trailingTrimmed)
            guard imports.allSatisfy(trimmed.contains) else { continue }
            if body.isEmpty { return Match(file: file.name, applePlatformCondition: condition(in: trimmed[...])) }
            guard body.count <= trimmed.count else { continue }
            for start in 0...(trimmed.count - body.count) where dedented(Array(trimmed[start..<(start + body.count)])) == Array(body) {
                return Match(file: file.name, applePlatformCondition: condition(in: trimmed[..<start]))
            }
        }
        return nil
    }

    /// The Apple-platform `canImport` condition of an `#if` still open after `lines`, if any.
    private static func condition(in lines: ArraySlice<String>) -> String? {
        var open: [String] = []
        for line in lines.map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("#if ") {
                open.append(String(line.dropFirst(4)))
            } else if line.hasPrefix("#endif") {
                _ = open.popLast()
            }
        }
        return open.first { ["canImport(SwiftUI)", "canImport(UIKit)", "canImport(AppKit)"].contains($0) }
    }

    private static func trailingTrimmed(_ line: String) -> String {
        var line = Substring(line)
        while let last = line.last, last == " " || last == "\t" || last == "\r" { line = line.dropLast() }
        return String(line)
    }

    /// Lines without trailing spaces and without the indentation all non-empty ones share.
    static func dedented(_ lines: [String]) -> [String] {
        let trimmed = lines.map(trailingTrimmed)
        let indentation = trimmed.filter { !$0.isEmpty }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return trimmed.map { $0.isEmpty ? $0 : String($0.dropFirst(indentation)) }
    }
}
