// `memo serve`'s command line: wrong options are usage errors that start nothing (the server
// itself: Tests/MemoServeTests and Tests/Browser).

import Foundation
import Testing

@Suite struct ServeCommandTests {
    @Test("memo serve refuses wrong options with exit status 2, and has a help page")
    func wrongOptions() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        for arguments in [["serve", "extra"], ["serve", "--port", "http"], ["serve", "--port", "70000"],
                          ["serve", "--sync-interval", "0"], ["serve", "--listen", "127.0.0.1:x"], ["serve", "--text", "x"]] {
            let result = try sandbox.memo(arguments, library: library)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: library), "nothing was created")
        let help = try sandbox.memo(["help", "serve"])
        #expect(help.status == 0 && help.stdout.contains("memo serve") && help.stdout.contains("--no-open"))
    }
}
