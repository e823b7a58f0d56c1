// Where the library is, and what `memo` remembers inside it.

import Foundation

/// Finding the library folder.
enum LibraryLocation {
    /// The folder name inside the per-user data folder.
    #if os(Linux) || os(Android) || os(FreeBSD) || os(OpenBSD)
    static let folderName = "memosync"
    #else
    static let folderName = "MemoSync"
    #endif

    /// The library folder: `--library PATH`, else `$MEMO_LIBRARY`, else ``defaultPath(environment:)``.
    /// A leading "~/" is expanded (a shell does not expand it in `--library=~/notes` or in a
    /// quoted `MEMO_LIBRARY`).
    static func resolve(option: String?, environment: [String: String]) throws(CLIError) -> String {
        if let option { return expandingTilde(option, environment: environment) }
        if let variable = environment["MEMO_LIBRARY"], !variable.isEmpty {
            return expandingTilde(variable, environment: environment)
        }
        return try defaultPath(environment: environment)
    }

    /// The per-user data folder's `memosync` folder: `$XDG_DATA_HOME/memosync` (when set to an
    /// absolute path, as the XDG specification requires), else `~/.local/share/memosync`, on
    /// Linux and other Unix systems; `~/Library/Application Support/MemoSync` on Apple platforms.
    static func defaultPath(environment: [String: String]) throws(CLIError) -> String {
        #if canImport(Darwin)
        if let url = try? FileManager.default.url(for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: false) {
            return url.appendingPathComponent(folderName, isDirectory: true).path
        }
        return try home(environment) + "/Library/Application Support/" + folderName
        #else
        if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
            return joined(dataHome, folderName)
        }
        return joined(try home(environment), ".local/share/" + folderName)
        #endif
    }

    /// The user's home folder: `$HOME`, else the account's.
    private static func home(_ environment: [String: String]) throws(CLIError) -> String {
        if let home = environment["HOME"], home.hasPrefix("/") { return home }
        let path = FileManager.default.homeDirectoryForCurrentUser.path
        guard path.hasPrefix("/") else {
            throw .runtime("error.noHome")
        }
        return path
    }

    private static func expandingTilde(_ path: String, environment: [String: String]) -> String {
        guard path == "~" || path.hasPrefix("~/"), let home = try? home(environment) else { return path }
        return home + path.dropFirst()
    }

    private static func joined(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }
}

/// What the command line remembers between runs, in `cli-settings.json` inside the library
/// folder (the library itself ignores files it does not know).
struct CLISettings: Codable, Equatable {
    /// The file's name.
    static let fileName = "cli-settings.json"
    /// The most bytes read of the file (1 MiB; it holds one path): a larger file is refused
    /// without being read (FORMAT.md, "Files of the `memo` command line").
    static let bytesMax = 1 << 20

    /// The store folder of the last successful `memo sync --store PATH` (absolute).
    var store: String?

    init(store: String? = nil) {
        self.store = store
    }

    /// The settings saved in `library`; empty settings when there is no file yet.
    ///
    /// - Throws: a runtime error when the file exists but cannot be read or is not valid.
    static func load(library: String) throws(CLIError) -> CLISettings {
        let path = filePath(library: library)
        guard FileManager.default.fileExists(atPath: path) else { return CLISettings() }
        let bytes: [UInt8]
        do throws(UserFileError) {
            bytes = try UserFile.bytes(at: path, limitBytes: bytesMax)
        } catch {
            throw .runtime("error.settingsUnreadable", ["path": path, "error": error.localizedReason])
        }
        do {
            return try JSONDecoder().decode(CLISettings.self, from: Data(bytes))
        } catch {
            throw .runtime("error.settingsUnreadable", ["path": path, "error": describe(error)])
        }
    }

    /// Writes the settings into `library`, atomically (a temporary file renamed over the old one).
    func save(library: String) throws(CLIError) {
        let path = CLISettings.filePath(library: library)
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            if #available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *) { encoder.outputFormatting.insert(.withoutEscapingSlashes) }
            var data = try encoder.encode(self)
            data.append(UInt8(ascii: "\n"))
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .runtime("error.cannotWrite", ["path": path, "error": describe(error)])
        }
    }

    static func filePath(library: String) -> String {
        library.hasSuffix("/") ? library + fileName : library + "/" + fileName
    }
}

/// A short description of a Foundation error, in the user's language where it is a file
/// system failure (Foundation's own text ends in "(NSCocoaErrorDomain error 512.)" and is English).
func describe(_ error: any Error) -> String {
    if let reason = fileSystemReason(error) { return reason }
    if let decoding = error as? Swift.DecodingError {
        switch decoding {
        case let .dataCorrupted(context), let .typeMismatch(_, context), let .valueNotFound(_, context),
            let .keyNotFound(_, context):
            return context.debugDescription
        @unknown default:
            return "\(decoding)"
        }
    }
    return error.localizedDescription
}

/// The reason of a Foundation file error, from the system's error number underneath when there
/// is one, else from Foundation's code; nil for errors of other kinds.
func fileSystemReason(_ error: any Error) -> String? {
    let error = error as NSError
    if error.domain == NSPOSIXErrorDomain { return UserFileError(errorNumber: Int32(error.code)).localizedReason }
    guard error.domain == NSCocoaErrorDomain else { return nil }
    // Foundation's write errors are 512 to 1023 (fileWriteUnknown ... fileWriteVolumeReadOnly):
    // a refused permission is then a refused write.
    let writing = (512...1023).contains(error.code)
    if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
        return UserFileError(errorNumber: Int32(underlying.code), writing: writing).localizedReason
    }
    switch CocoaError.Code(rawValue: error.code) {
    case .fileNoSuchFile, .fileReadNoSuchFile: return UserFileError.missing.localizedReason
    case .fileReadNoPermission: return UserFileError.permissionDenied.localizedReason
    case .fileWriteNoPermission: return UserFileError.writePermissionDenied.localizedReason
    case .fileWriteOutOfSpace: return t("file.diskFull")
    case .fileWriteVolumeReadOnly: return t("file.readOnly")
    case .fileWriteFileExists: return t("file.exists")
    default: return t("file.failed", ["reason": t("file.unknownFailure")])
    }
}
