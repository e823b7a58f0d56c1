// `memo serve`: the notes app in the browser (MemoServe). This file only reads the options,
// opens the store for the background syncs and prints the address; the server, the page and
// the scheme between them are in Sources/MemoServe (SERVE.md).

import Foundation
import MemoServe
import MemoSync
import Synchronization

/// The options of `memo serve`, as given.
struct ServeOptions: Equatable {
    /// `--listen ADDRESS[:PORT]`: an address other than 127.0.0.1 (the token is still required).
    var listen: String?
    /// `--port N`: the port on 127.0.0.1 (0, the default: any free one).
    var port: UInt16 = 0
    /// `--no-open`: print the address without opening a browser.
    var noOpen = false
    /// `--sync-interval SECONDS`: sync at least this often (default 30).
    var syncIntervalSeconds = 30
    /// The store options, as `memo sync` takes them.
    var store = StoreOptions()
}

extension ServeOptions {
    /// The address and port of `--listen ADDRESS[:PORT]`: an IPv4 address or a name, and a port
    /// from 0 to 65535. An IPv6 address (two colons or more, or brackets) is refused in words:
    /// the server listens on IPv4 only.
    static func listenAddress(_ value: String) throws(CLIError) -> (address: String, port: UInt16?) {
        if value.hasPrefix("[") || value.filter({ $0 == ":" }).count > 1 { throw .usage("error.listenIPv6", ["value": value]) }
        let parts = value.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard !parts[0].isEmpty else { throw .usage("error.optionNeeds", ["option": "--listen", "what": "ADDRESS[:PORT]"]) }
        guard parts.count == 2 else { return (parts[0], nil) }
        guard let port = UInt16(parts[1]) else { throw .usage("error.badPort", ["what": "--listen", "value": value]) }
        return (parts[0], port)
    }
}

extension ArgumentParser {
    /// `memo serve [--listen ADDRESS[:PORT]] [--port N] [--no-open] [--sync-interval SECONDS] [--store ...]`.
    static func serveOptions(_ options: [(name: String, values: [String])]) throws(CLIError) -> ServeOptions {
        var result = ServeOptions()
        for option in options {
            let value = option.values.first ?? ""
            switch option.name {
            case "--listen":
                _ = try ServeOptions.listenAddress(value)
                result.listen = value
            case "--port":
                guard let port = UInt16(value) else { throw .usage("error.badPort", ["what": "--port", "value": value]) }
                result.port = port
            case "--no-open":
                result.noOpen = true
            case "--sync-interval":
                guard let seconds = Int(value), seconds >= 1, seconds <= 86_400 else {
                    throw .usage("error.badSyncInterval", ["value": value])
                }
                result.syncIntervalSeconds = seconds
            case "--store": result.store.store = value
            case "--endpoint": result.store.endpoint = value
            case "--region": result.store.region = value
            default: continue
            }
        }
        return result
    }
}

extension Runner {
    /// Runs the server until the process is interrupted.
    mutating func serve(_ invocation: Invocation, options: ServeOptions) async throws(CLIError) {
        let path = try libraryPath(invocation)
        var (address, port) = ("127.0.0.1", options.port)
        if let listen = options.listen {
            let given = try ServeOptions.listenAddress(listen)
            address = given.address
            if let givenPort = given.port { port = givenPort }
        }
        // The store: the one given, else the one `memo sync` remembers; none is fine (no sync).
        let settings = try CLISettings.load(library: path)
        var syncer: ServeSyncer?
        var storeShown: String?
        if options.store.store != nil || settings.store != nil {
            let (store, location) = try openStore(options.store, remembered: settings.store, library: path)
            let shown = Self.storeDisplay(location)
            storeShown = shown
            let session = EncryptionSession(environment: environment, options: invocation.encryption, libraryPath: path, storeName: shown, quiet: quiet)
            // An encrypted library syncs only through encryption, whatever the store shows (a
            // wiped store gets its key blob back), as `memo sync` does.
            let libraryFolder = path.hasSuffix("/") ? path : path + "/"
            let library: LibraryEncryption? =
                FileManager.default.contents(atPath: libraryFolder + LibraryEncryption.fileName).map { LibraryEncryption(decoding: Array($0)) }
                ?? (FileManager.default.fileExists(atPath: session.rememberedKeyPath) ? LibraryEncryption(keyBlobKey: nil, keyBlob: nil) : nil)
            let syncStore: any BlobStore
            if library != nil {
                syncStore = try await session.unlock(store, library: library)
            } else if case .encrypted? = try? await StoreEncryption.status(of: store) {
                syncStore = try await session.unlock(store, library: nil)
            } else {
                syncStore = store
            }
            syncer = { replica in
                do throws(ReplicaError) {
                    let report = try await replica.sync(with: syncStore)
                    let error = report.errors.first?.description
                    return ServeSyncOutcome(complete: report.isComplete, reachedStore: report.listedStore, error: error.map { Format.terminalSafe($0) })
                } catch {
                    return ServeSyncOutcome(complete: false, reachedStore: true, error: explain(error))
                }
            }
        }
        var configuration = ServeConfiguration(libraryPath: path)
        configuration.syncIntervalMilliseconds = options.syncIntervalSeconds * 1000
        // Listening first: a port in use (or an address this machine does not have) fails the
        // command before the library is opened, so a first run that fails leaves no library
        // behind ("a failed command changes nothing"). Requests meanwhile get 503.
        let box = AppBox()
        let server: HTTPServer
        do throws(HTTPServerError) {
            server = try HTTPServer(address: address, port: port) { request in box.handle(request) }
        } catch {
            throw .runtime("error.serveCannotListen", ["address": "\(address):\(port)", "error": error.description])
        }
        let host: LibraryHost
        // The notes app starts a library where there is none (a first run), and says so, as
        // `memo new` does: a typo in the path shows as a new library, not as silence.
        let existed = FileManager.default.fileExists(atPath: path + "/" + LibraryCore.stateFileName)
        do throws(ServeFailure) {
            host = try LibraryHost(configuration: configuration, syncer: syncer)
        } catch {
            server.stop()
            throw .runtime("error.cannotOpenLibrary", ["path": path, "error": error.message])
        }
        if !existed { note(t("note.createdLibrary", ["path": path])) }
        // Damage the open found (a journal record lost, a file kept aside) is told as every
        // command tells it, and the command exits 4 when stopped.
        warn(host.openReport, path: path)
        let app = ServeApp(host: host, security: ServeSecurity(address: address, port: server.port))
        box.set(app)
        let url = "http://\(address):\(server.port)/?token=\(app.security.token)"
        // Caught before the address is out: whoever reads it may stop the server at once (a test
        // did, between the address and the handler, and the signal was ignored for good).
        let stopSignals = Self.catchStopSignals(environment: environment)
        console.print(t("serve.address", ["url": url]))
        if let storeShown { console.print(t("serve.syncing", ["store": storeShown, "seconds": String(options.syncIntervalSeconds)])) }
        if address != "127.0.0.1" { note(t("note.serveListening", ["address": address])) }
        console.print(t("serve.stop"))
        console.flush()
        // The opener gets an address of its own, good for one visit: its command line can be
        // read by other users of the machine (SERVE.md, "Safe on a shared machine").
        if !options.noOpen { Self.openBrowser("http://\(address):\(server.port)/?token=\(app.security.openerToken)", environment: environment) }
        // Until interrupted: SIGINT/SIGTERM stop the server and close the library cleanly.
        await stopSignals.wait()
        server.stop()
        host.stop()
    }

    /// Opens `url` with ``browserCommand(for:environment:)``, if any (its program must exist).
    static func openBrowser(_ url: String, environment: [String: String]) {
        guard let (executable, arguments) = browserCommand(for: url, environment: environment),
            FileManager.default.isExecutableFile(atPath: executable)
        else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
    }

    /// What opens `url`: the first command of `$BROWSER` (the convention `sensible-browser` and
    /// `xdg-open` follow: commands separated by colons, `%s` standing for the address, else the
    /// address added after the command), run by the shell; else the desktop's opener when there
    /// is a desktop (`open` on macOS; `xdg-open` on Linux when `DISPLAY` or `WAYLAND_DISPLAY` is
    /// set); else nothing.
    static func browserCommand(for url: String, environment: [String: String]) -> (executable: String, arguments: [String])? {
        if let browsers = environment["BROWSER"],
            let command = browsers.split(separator: ":").first(where: { !$0.allSatisfy(\.isWhitespace) })
        {
            // Run by the shell, so the command may hold options; the address is "$1", never
            // pasted into the command line.
            let script = command.contains("%s") ? command.replacingOccurrences(of: "%s", with: "\"$1\"") : command + " \"$1\""
            return ("/bin/sh", ["-c", script, "memo", url])
        }
        #if os(macOS)
        return ("/usr/bin/open", [url])
        #else
        guard !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty else { return nil }
        return ("/usr/bin/xdg-open", [url])
        #endif
    }

    /// SIGINT and SIGTERM, caught from now on instead of ending the process: ``StopSignals/wait()``
    /// returns once one has arrived, including one that arrived before it was called.
    ///
    /// The handler is installed here, before this returns (`signal(2)`), and writes a byte to a
    /// pipe (the only thing it does: `write(2)` may be called from a signal handler); a thread
    /// reads the pipe. A dispatch signal source did this before, and registers its handler
    /// later, on the dispatch manager's thread: a signal sent between the address being printed
    /// and that registration was ignored for good (SIGINT sent the moment the address showed
    /// left `memo serve` running in one test run out of several).
    static func catchStopSignals(environment: [String: String]) -> StopSignals {
        serveSignalGap(environment)
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else {
            // No pipe (out of descriptors): the signals end the process as they would anyway.
            return StopSignals(arrivals: stream)
        }
        StopSignalPipe.writeDescriptor = descriptors[1]
        let reader = descriptors[0]
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while true {
                let count = read(reader, &byte, 1)
                if count == 1 || (count < 0 && errno != EINTR) || count == 0 { break }
            }
            continuation.yield()
        }
        for number in [SIGINT, SIGTERM] {
            signal(number) { _ in
                var byte: UInt8 = 1
                _ = write(StopSignalPipe.writeDescriptor, &byte, 1)
            }
        }
        return StopSignals(arrivals: stream)
    }

    /// The stop signals ``catchStopSignals(environment:)`` catches.
    struct StopSignals {
        /// One element once a signal was caught (kept until read).
        let arrivals: AsyncStream<Void>

        /// Returns once a signal has arrived since they were caught. They stay caught: a second
        /// Ctrl-C while the library is being saved and closed does not cut that short.
        func wait() async {
            for await _ in arrivals { break }
        }
    }
}

/// Where the stop signals' handler writes (set once, before the handler is installed).
private enum StopSignalPipe {
    nonisolated(unsafe) static var writeDescriptor: Int32 = -1
}

/// The app, set once the server's port is known (the server starts before the app exists).
final class AppBox: Sendable {
    private let app = Mutex<ServeApp?>(nil)
    func set(_ value: ServeApp) { app.withLock { $0 = value } }
    func handle(_ request: HTTPRequest) -> HTTPReply {
        guard let app = app.withLock({ $0 }) else { return .response(.text(503, "starting\n")) }
        return app.handle(request)
    }
}
