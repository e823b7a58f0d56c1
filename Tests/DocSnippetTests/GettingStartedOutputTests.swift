// The outputs the articles' snippets print in their comments, checked by running the same
// statements (the snippets themselves are compiled, never run: their paths are placeholders).

import Foundation
import MemoSync
import Testing

@Suite("what the articles' snippets say they print")
struct GettingStartedOutputTests {
    /// GettingStarted.md, "Create and edit memos": `// Shopping / milk, eggs, bread`.
    @Test func createAndEditMemosPrintsWhatItsCommentSays() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("getting-started-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let replica = try Replica(libraryPath: folder)
        let groceries = try replica.createMemo(text: "Groceries\nmilk")
        try replica.edit(groceries, replacingUTF16: 14..<14, with: ", eggs")   // after "milk"
        #expect(replica.notebook.memo(groceries)?.text == "Groceries\nmilk, eggs")
        try replica.edit(groceries, replacingUTF16: 0..<9, with: "Shopping")   // the title
        try replica.setText(groceries, to: "Shopping\nmilk, eggs, bread")      // only what differs changes
        let memo = replica.notebook.memo(groceries)
        #expect(memo?.title == "Shopping")
        #expect(memo?.body == "milk, eggs, bread")
        await replica.close()
    }
}
