// `memo serve`'s command line: wrong options are usage errors that start nothing (the server
// itself: Tests/MemoServeTests and Tests/Browser).

import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
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
        // Each says what it wants (the port and the interval were once refused as "a whole
        // number of characters, 0 or more", 0 included).
        let expected: [([String], String)] = [
            (["serve", "--sync-interval", "0"], "--sync-interval needs a whole number of seconds from 1 to 86400 (got '0')"),
            (["serve", "--port", "65536"], "--port needs a port number from 0 to 65535 (got '65536')"),
            (["serve", "--listen", "127.0.0.1:70000"], "--listen needs a port number from 0 to 65535 (got '127.0.0.1:70000')"),
            (["serve", "--listen", "::1"], "memo serve listens on IPv4 addresses only, such as 127.0.0.1 (got '::1')"),
            (["serve", "--listen", "[::1]:8080"], "IPv4 addresses only"),
            (["serve", "--listen", ":8080"], "option --listen needs ADDRESS[:PORT]"),
        ]
        for (arguments, message) in expected {
            let result = try sandbox.memo(arguments, library: library)
            #expect(result.status == 2 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: library), "nothing was created")
        let help = try sandbox.memo(["help", "serve"])
        #expect(help.status == 0 && help.stdout.contains("memo serve") && help.stdout.contains("--no-open"))
    }

    /// A first run that cannot listen (the port is taken) fails with exit status 1 and leaves
    /// no library behind: "a failed command changes nothing" (`memo help`). It once created the
    /// library first and then failed.
    @Test func aServeThatCannotListenLeavesNoLibrary() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let taken = try #require(Self.listeningSocket(), "a socket listening on 127.0.0.1")
        defer { close(taken.descriptor) }
        for options in [["--port", String(taken.port)], ["--listen", "127.0.0.1:\(taken.port)"]] {
            let library = sandbox.at("fresh-\(options[0].dropFirst(2))")
            let result = try sandbox.memo(["serve", "--no-open"] + options, library: library)
            #expect(result.status == 1, "\(options): \(result.stderr)")
            #expect(result.stderr.contains("cannot listen on 127.0.0.1:\(taken.port)"), "\(result.stderr)")
            #expect(!result.stderr.contains("created a new library"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: library), "\(options): a library was left behind")
        }
    }

    /// A TCP socket listening on 127.0.0.1 at a port the system chose, and that port.
    static func listeningSocket() -> (descriptor: Int32, port: UInt16)? {
        #if os(Linux)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && listen(descriptor, 4) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else {
            close(descriptor)
            return nil
        }
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }

    /// `memo serve --no-open` on `library`, started, its standard output and error going to
    /// the files at `outPath` and `errPath`.
    static func startServe(
        _ sandbox: Sandbox, _ executable: String, library: String, options: [String] = ["--no-open"], environment: [String: String] = [:],
        outPath: String, errPath: String
    ) throws -> Process {
        let server = try sandbox.memoProcess(executable, ["serve"] + options, library: library, environment: environment, outPath: outPath, errPath: errPath)
        server.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        server.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        server.standardInput = FileHandle.nullDevice
        try server.run()
        return server
    }

    /// Sends SIGTERM (or `signal`: SIGINT is Ctrl-C) to `server` and expects it to end within
    /// 30 s, exiting with `status`.
    static func expectStopsOnSIGTERM(
        _ server: Process, status: Int32, signal: Int32 = SIGTERM, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        kill(server.processIdentifier, signal)
        let stopDeadline = Date(timeIntervalSinceNow: 30)
        while server.isRunning, Date() < stopDeadline { usleep(20_000) }
        #expect(!server.isRunning, "signal \(signal) was lost: the server still runs", sourceLocation: sourceLocation)
        if !server.isRunning {
            #expect(
                server.terminationReason == .exit && server.terminationStatus == status, "\(server.terminationReason) \(server.terminationStatus)",
                sourceLocation: sourceLocation)
        }
    }

    /// `memo help serve`: "--port N  the port on 127.0.0.1", "--store PATH|URL  sync with this
    /// store", "--sync-interval SECONDS  sync at least this often (default 30)": the address it
    /// prints is on that port, and it says it syncs with that store every 30 s.
    @Test func servingOnAGivenPortWithAStoreSyncsEveryThirtySecondsByDefault() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let executable = try #require(MemoExecutable.path)
        let library = sandbox.at("library")
        try sandbox.ok(["new", "first memo"], library: library)
        let store = sandbox.at("store")
        // A port free a moment ago (the kernel's pick for a socket closed at once).
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, length) == 0 && getsockname(probe, $0, &length) == 0 }
        }
        close(probe)
        #expect(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let outPath = sandbox.at("out"), errPath = sandbox.at("err")
        let server = try Self.startServe(
            sandbox, executable, library: library, options: ["--no-open", "--port", "\(port)", "--store", store], outPath: outPath, errPath: errPath)
        defer { if server.isRunning { server.terminate(); server.waitUntilExit() } }
        let deadline = Date(timeIntervalSinceNow: 30)
        var printed = ""
        while Date() < deadline, !(printed.contains("?token=") && printed.contains("every 30 s")) {
            usleep(50_000)
            printed = ((try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "") + ((try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
        }
        #expect(printed.contains("http://127.0.0.1:\(port)/?token="), "\(printed)")
        #expect(printed.contains("Syncing with \(store) in the background (at least every 30 s)."), "\(printed)")
        // SERVE.md: "Listens on 127.0.0.1 only": the same port on another loopback address
        // (which a server on every address would answer) refuses the connection.
        #expect(!Self.connects(to: "127.0.0.2", port: port), "the server answers on 127.0.0.2 too")
        #expect(Self.connects(to: "127.0.0.1", port: port))
        server.terminate()
        server.waitUntilExit()

        // "--listen ADDRESS[:PORT]  listen on another IPv4 address (the token is still
        // required...)": another loopback address, said on standard error, and a connection
        // there is accepted.
        let listenOut = sandbox.at("listen-out"), listenErr = sandbox.at("listen-err")
        let listening = try Self.startServe(
            sandbox, executable, library: library, options: ["--no-open", "--listen", "127.0.0.2"], outPath: listenOut, errPath: listenErr)
        defer { if listening.isRunning { listening.terminate(); listening.waitUntilExit() } }
        let listenPrinted = Self.printedAddress(listenOut, until: deadline.addingTimeInterval(30))
        let match = try #require(listenPrinted.firstMatch(of: /http:\/\/127\.0\.0\.2:(\d+)\/\?token=([0-9a-f]+)/), "\(listenPrinted)")
        let errors = (try? String(contentsOfFile: listenErr, encoding: .utf8)) ?? ""
        #expect(errors.contains("listening on 127.0.0.2: anyone who can reach it needs the token"), "\(errors)")
        // The warning says what plain HTTP means for the token: it crosses the network readable.
        #expect(errors.contains("crosses the network in clear text (plain HTTP, no encryption)"), "\(errors)")
        #expect(Self.connects(to: "127.0.0.2", port: Int(match.1)!), "no connection to 127.0.0.2:\(match.1)")
        // "(the token still applies)": the API there without the token is refused, with it served.
        func status(token: String?) -> Int? {
            var request = URLRequest(url: URL(string: "http://127.0.0.2:\(match.1)/api/memos")!)
            request.httpShouldHandleCookies = false
            if let token { request.setValue(token, forHTTPHeaderField: "X-Memo-Token") }
            let answer = Mutex<Int?>(nil)
            let done = DispatchSemaphore(value: 0)
            URLSession.shared.dataTask(with: request) { _, response, _ in
                answer.withLock { $0 = (response as? HTTPURLResponse)?.statusCode }
                done.signal()
            }.resume()
            _ = done.wait(timeout: .now() + 10)
            return answer.withLock { $0 }
        }
        #expect(status(token: nil) == 403)
        #expect(status(token: "0000") == 403)
        #expect(status(token: String(match.2)) == 200)
    }

    /// What `memo serve` printed to `outPath`, read every `pollMicroseconds` until it holds the
    /// address (its `?token=`) or `deadline` passes.
    static func printedAddress(_ outPath: String, until deadline: Date, pollMicroseconds: UInt32 = 50_000) -> String {
        var printed = ""
        while Date() < deadline, !printed.contains("?token=") {
            usleep(pollMicroseconds)
            printed = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        }
        return printed
    }

    /// Whether a TCP connection to `address`:`port` is accepted.
    static func connects(to address: String, port: Int) -> Bool {
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_addr.s_addr = inet_addr(address)
        target.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// `memo help serve`: it "opens it with $BROWSER" (the first of its colon-separated
    /// commands, `%s` standing for the address, else the address added after it), and only
    /// the address it printed, with a single-use token of its own (SERVE.md); with --no-open it
    /// opens nothing.
    @Test(arguments: [false, true])
    func servingOpensTheAddressWithBrowser(percentForm: Bool) throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let executable = try #require(MemoExecutable.path)
        let library = sandbox.at("library")
        try sandbox.ok(["new", "first memo"], library: library)
        let opened = sandbox.at("opened")
        let browser = sandbox.at("browser.sh")
        // Writes its arguments, one a line, where the test reads them.
        try "#!/bin/sh\nprintf '%s\\n' \"$@\" > '\(opened)'\n".write(toFile: browser, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: browser)
        let variable = percentForm ? "\(browser) --new-window %s:/nonexistent/other-browser" : browser
        for noOpen in [true, false] {
            try? FileManager.default.removeItem(atPath: opened)
            let outPath = sandbox.at("out-\(noOpen)"), errPath = sandbox.at("err-\(noOpen)")
            let server = try Self.startServe(
                sandbox, executable, library: library, options: noOpen ? ["--no-open"] : [], environment: ["BROWSER": variable], outPath: outPath,
                errPath: errPath)
            defer { if server.isRunning { server.terminate(); server.waitUntilExit() } }
            let deadline = Date(timeIntervalSinceNow: 30)
            var printed = ""
            while Date() < deadline, !printed.contains("?token=") || (!noOpen && !FileManager.default.fileExists(atPath: opened)) {
                usleep(50_000)
                printed = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
            }
            let url = try #require(printed.firstMatch(of: /http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+/).map { String($0.output) }, "\(printed)")
            if noOpen {
                usleep(300_000)
                #expect(!FileManager.default.fileExists(atPath: opened), "--no-open opened the browser")
            } else {
                var arguments: [String] = []
                while Date() < deadline && arguments.isEmpty {
                    arguments = ((try? String(contentsOfFile: opened, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
                    if arguments.isEmpty { usleep(50_000) }
                }
                // The printed address's origin, with a token of its own (single-use: its command
                // line can be read by other users of the machine).
                let opener = arguments.last ?? ""
                #expect(Array(arguments.dropLast()) == (percentForm ? ["--new-window"] : []), "\(arguments)")
                let origin = url.prefix(while: { $0 != "?" })
                #expect(opener.hasPrefix(origin + "?token=") && opener != url, "\(arguments)")
                #expect(opener.firstMatch(of: /^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64}$/) != nil, "\(arguments)")
            }
        }
    }

    /// SIGTERM or SIGINT (Ctrl-C, README: "`memo serve` … stops with Ctrl-C") sent the moment
    /// the address shows stops the server cleanly (exit status 0): the stop signals are caught
    /// before the address is printed. A test hook pauses the server just before it catches them;
    /// a server that printed first lost a signal sent in that moment and ran on for good (the
    /// test command hung on it once, without the hook). And caught means caught by then: a
    /// dispatch signal source, registered later on another thread, lost SIGINT here once.
    @Test(arguments: [SIGTERM, SIGINT])
    func aStopSignalSentAsSoonAsTheAddressShowsStopsTheServer(signal: Int32) throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let executable = try #require(MemoExecutable.path)
        let library = sandbox.at("library")
        try sandbox.ok(["new", "first memo"], library: library)
        let outPath = sandbox.at("out"), errPath = sandbox.at("err")
        let server = try Self.startServe(
            sandbox, executable, library: library, environment: ["MEMO_TEST_SERVE_SIGNAL_GAP_MS": "1500"], outPath: outPath, errPath: errPath)
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL); server.waitUntilExit() } }
        let printed = Self.printedAddress(outPath, until: Date(timeIntervalSinceNow: 30), pollMicroseconds: 10_000)
        #expect(printed.contains("?token="), "no address")
        Self.expectStopsOnSIGTERM(server, status: 0, signal: signal)
    }

    /// `memo serve` on a library whose journal was damaged tells it as every command does (the
    /// warning on standard error, the damaged file kept aside, exit status 4 once stopped): it
    /// said nothing, and the user learned of the loss from no one (issue 25).
    @Test func servingADamagedLibraryTellsTheDamageAndExitsFour() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let executable = try #require(MemoExecutable.path)
        let library = sandbox.at("library")
        for text in ["first memo alpha", "second", "third"] { try sandbox.ok(["new", text], library: library) }
        let journal = library + "/journal-0"
        let damaged = try LibraryDamageCLITests.flip(journal, offset: 20, bit: 2)
        let outPath = sandbox.at("out"), errPath = sandbox.at("err")
        let server = try Self.startServe(sandbox, executable, library: library, outPath: outPath, errPath: errPath)
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL); server.waitUntilExit() } }
        let printed = Self.printedAddress(outPath, until: Date(timeIntervalSinceNow: 30))
        #expect(printed.contains("?token="), "no address")
        let errors = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        #expect(errors.contains("warning: the library file \(journal) is damaged") && errors.contains("1 saved record(s) lost"), "\(errors)")
        #expect(errors.contains(journal + ".damaged-1"), "\(errors)")
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: journal + ".damaged-1"))) == damaged)
        Self.expectStopsOnSIGTERM(server, status: 4)
    }

    /// On a path without a library, `memo serve` starts one (a first run of the notes app) and
    /// says so on standard error, as `memo new` does; on a library, it says nothing of the kind.
    @Test func servingAPathWithoutALibraryCreatesOneAndSaysSo() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let executable = try #require(MemoExecutable.path)
        for existing in [false, true] {
            let library = sandbox.at(existing ? "existing" : "new")
            if existing { try sandbox.ok(["new", "first memo"], library: library) }
            let outPath = sandbox.at("out-\(existing)"), errPath = sandbox.at("err-\(existing)")
            let server = try Self.startServe(sandbox, executable, library: library, outPath: outPath, errPath: errPath)
            defer { if server.isRunning { server.terminate(); server.waitUntilExit() } }
            let printed = Self.printedAddress(outPath, until: Date(timeIntervalSinceNow: 30))
            let errors = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
            #expect(printed.contains("?token="), "no address: \(errors)")
            #expect(errors.contains("created a new library at \(library)") == !existing, "\(errors)")
            #expect(FileManager.default.fileExists(atPath: library + "/state"))
        }
    }

    /// While `memo serve` runs, `memo new` and `memo sync` on the same library work without
    /// waiting for it to stop (SERVE.md, "Sharing the library"); the server's API lists what
    /// `memo new` wrote, `memo list` what the page created, and stopping the server keeps both.
    @Test func writerCommandsWorkWhileServing() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        try sandbox.ok(["new", "first memo"], library: library)
        let executable = try #require(MemoExecutable.path)
        let outPath = sandbox.at("serve-out"), errPath = sandbox.at("serve-err")
        let server = try Self.startServe(sandbox, executable, library: library, outPath: outPath, errPath: errPath)
        defer { if server.isRunning { server.terminate(); server.waitUntilExit() } }
        func waitFor(seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
            let deadline = Date(timeIntervalSinceNow: seconds)
            while Date() < deadline {
                if try condition() { return true }
                usleep(50_000)
            }
            return try condition()
        }
        var address: (port: Int, token: String)?
        #expect(waitFor(seconds: 30) {
            let printed = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
            guard let match = printed.firstMatch(of: /http:\/\/127\.0\.0\.1:(\d+)\/\?token=([0-9a-f]+)/) else { return false }
            address = (Int(match.1)!, String(match.2))
            return true
        }, "memo serve printed no address: \((try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")")
        let (port, token) = try #require(address)
        func api(_ method: String, _ path: String, _ body: String? = nil) throws -> [String: Any] {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
            request.httpMethod = method
            request.httpShouldHandleCookies = false
            request.setValue(token, forHTTPHeaderField: "X-Memo-Token")
            if let body {
                request.httpBody = Data(body.utf8)
                request.setValue("http://127.0.0.1:\(port)", forHTTPHeaderField: "Origin")
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            let answer = Mutex<Data?>(nil)
            let done = DispatchSemaphore(value: 0)
            URLSession.shared.dataTask(with: request) { data, _, _ in
                answer.withLock { $0 = data }
                done.signal()
            }.resume()
            _ = done.wait(timeout: .now() + 10)
            let data = try #require(answer.withLock { $0 }, "no answer to \(method) \(path)")
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
        func titles() throws -> [String] {
            (try api("GET", "/api/memos")["memos"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
        }
        #expect(try titles() == ["first memo"])
        // A writer: at once (well within its own 30 s wait for the library), not after the server.
        let started = Date()
        try sandbox.ok(["new", "from the command line"], library: library)
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(try waitFor(seconds: 10) { try titles().contains("from the command line") }, "the page was not told")
        // What the page creates is saved where `memo list` reads it.
        _ = try api("POST", "/api/memos", #"{"text":"from the page"}"#)
        #expect(try waitFor(seconds: 10) { try sandbox.ok(["list"], library: library).stdout.contains("from the page") })
        // A sync of the library, while the server holds it open.
        try sandbox.ok(["sync", "--store", sandbox.at("store")], library: library)
        #expect(FileManager.default.fileExists(atPath: sandbox.at("store")))
        // SERVE.md: "stopping (Ctrl-C, SIGTERM) saves and closes": a memo made a moment before
        // Ctrl-C, before any periodic save could take it, is in the library after.
        _ = try api("POST", "/api/memos", #"{"text":"typed just before Ctrl-C"}"#)
        kill(server.processIdentifier, SIGINT)
        server.waitUntilExit()
        #expect(server.terminationReason == .exit && server.terminationStatus == 0)
        let listed = try sandbox.ok(["list"], library: library).stdout
        #expect(listed.contains("first memo") && listed.contains("from the command line") && listed.contains("from the page"), "\(listed)")
        #expect(listed.contains("typed just before Ctrl-C"), "\(listed)")
    }
}
