// `memo sync --store s3://…` and `--store http(s)://…` against the test servers
// (Tests/Servers/servers.sh), each run of memo a real process.

import Foundation
import Testing

private let servers = ProcessInfo.processInfo.environment

/// The suite below runs only with the test servers; where they are required (.ci/run sets
/// MEMOSYNC_REQUIRE_REMOTE_SERVERS=1), their absence is a failure here, never a silent skip.
@Suite struct RemoteStoreCLIServersTests {
    @Test func theServersAreThereWhenRequired() {
        guard servers["MEMOSYNC_REQUIRE_REMOTE_SERVERS"] == "1" else { return }
        let why = servers["MEMOSYNC_TEST_SERVERS_MISSING"] ?? "the MEMOSYNC_TEST_* variables are not set"
        #expect(servers["MEMOSYNC_TEST_S3_ENDPOINT"] != nil, "MEMOSYNC_REQUIRE_REMOTE_SERVERS=1 but no S3 server: \(why)")
        #expect(servers["MEMOSYNC_TEST_DAV_URL"] != nil, "MEMOSYNC_REQUIRE_REMOTE_SERVERS=1 but no WebDAV server: \(why)")
    }
}

@Suite(.enabled(if: servers["MEMOSYNC_TEST_S3_ENDPOINT"] != nil, "needs the test servers (Tests/run.sh starts them)"))
struct RemoteStoreCLITests {
    private var secrets: [String] { [servers["MEMOSYNC_TEST_S3_SECRET_KEY"] ?? "-", servers["MEMOSYNC_TEST_DAV_PASSWORD"] ?? "-"] }

    private func expectNoSecret(_ result: RunResult, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in secrets {
            #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret), "a secret was printed:\n\(result)", sourceLocation: sourceLocation)
        }
    }

    @Test func twoLibrariesSyncThroughABucketNamedByURL() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let endpoint = servers["MEMOSYNC_TEST_S3_ENDPOINT"] ?? ""
        let store = "s3://\(servers["MEMOSYNC_TEST_S3_BUCKET"] ?? "")/cli-\(UInt32.random(in: 0...UInt32.max))"
        let credentials = ["AWS_ACCESS_KEY_ID": servers["MEMOSYNC_TEST_S3_ACCESS_KEY"] ?? "", "AWS_SECRET_ACCESS_KEY": servers["MEMOSYNC_TEST_S3_SECRET_KEY"] ?? ""]
        let (a, b) = (sandbox.at("library-a"), sandbox.at("library-b"))
        try sandbox.ok(["new", "from a bucket"], library: a)
        expectNoSecret(try sandbox.ok(["sync", "--store", store, "--endpoint", endpoint], library: a, environment: credentials))
        let status = try sandbox.ok(["status"], library: a)
        #expect(status.stdout.contains("Store:          S3 bucket \(servers["MEMOSYNC_TEST_S3_BUCKET"] ?? "")"), "\(status)")
        #expect(status.stdout.contains("at \(endpoint)"), "\(status)")
        expectNoSecret(status)
        // B: credentials from its library's credentials file; the store remembered afterwards.
        try sandbox.ok(["new", "b's memo"], library: b)
        let file = "[s3]\naws_access_key_id = \(credentials["AWS_ACCESS_KEY_ID"]!)\naws_secret_access_key = \(credentials["AWS_SECRET_ACCESS_KEY"]!)\n"
        try Data(file.utf8).write(to: URL(fileURLWithPath: b + "/store-credentials"))
        expectNoSecret(try sandbox.ok(["sync", "--store", store, "--endpoint", endpoint, "--region", "us-east-1"], library: b))
        expectNoSecret(try sandbox.ok(["sync"], library: a, environment: credentials))
        for library in [a, b] {
            let list = try sandbox.ok(["list"], library: library).stdout
            #expect(list.contains("from a bucket") && list.contains("b's memo"), "\(list)")
        }
        // Wrong credentials: a clear error, exit 1, nothing printed on standard output.
        let refused = try sandbox.fails(
            ["sync"], status: 1, containing: ["SignatureDoesNotMatch", "nothing was read or written"], library: a,
            environment: ["AWS_ACCESS_KEY_ID": credentials["AWS_ACCESS_KEY_ID"]!, "AWS_SECRET_ACCESS_KEY": "wrong"])
        expectNoSecret(refused)
    }

    @Test func twoLibrariesSyncThroughAWebDAVFolder() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let name = "cli-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: (servers["MEMOSYNC_TEST_SERVERS_STATE"] ?? "") + "/webdav-data/" + name, withIntermediateDirectories: true)
        let store = (servers["MEMOSYNC_TEST_DAV_URL"] ?? "") + name
        let credentials = ["MEMOSYNC_WEBDAV_USER": servers["MEMOSYNC_TEST_DAV_USER"] ?? "", "MEMOSYNC_WEBDAV_PASSWORD": servers["MEMOSYNC_TEST_DAV_PASSWORD"] ?? ""]
        let (a, b) = (sandbox.at("library-a"), sandbox.at("library-b"))
        try sandbox.ok(["new", "from a WebDAV folder"], library: a)
        expectNoSecret(try sandbox.ok(["sync", "--store", store], library: a, environment: credentials))
        let status = try sandbox.ok(["status"], library: a)
        #expect(status.stdout.contains("Store:          WebDAV folder \(store)/"), "\(status)")
        try sandbox.ok(["new", "b's memo"], library: b)
        let file = "[webdav]\nuser = \(credentials["MEMOSYNC_WEBDAV_USER"]!)\npassword = \(credentials["MEMOSYNC_WEBDAV_PASSWORD"]!)\n"
        try Data(file.utf8).write(to: URL(fileURLWithPath: b + "/store-credentials"))
        expectNoSecret(try sandbox.ok(["sync", "--store", store], library: b))
        expectNoSecret(try sandbox.ok(["sync"], library: a, environment: credentials))
        for library in [a, b] {
            let list = try sandbox.ok(["list"], library: library).stdout
            #expect(list.contains("from a WebDAV folder") && list.contains("b's memo"), "\(list)")
        }
        expectNoSecret(try sandbox.fails(["sync"], status: 1, containing: ["401"], library: a, environment: ["MEMOSYNC_WEBDAV_USER": "memosync", "MEMOSYNC_WEBDAV_PASSWORD": "wrong"]))
    }

    /// A WebDAV folder named by `--store` that does not exist is made (MKCOL, two levels here),
    /// as a folder store's folder is; a remembered one that has gone is an error, not remade.
    @Test func aMissingWebDAVFolderIsMadeWhenNamedNotWhenRemembered() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let name = "cli-made-\(UInt32.random(in: 0...UInt32.max))"
        let onDisk = (servers["MEMOSYNC_TEST_SERVERS_STATE"] ?? "") + "/webdav-data/" + name
        let store = (servers["MEMOSYNC_TEST_DAV_URL"] ?? "") + name + "/notes"
        let credentials = ["MEMOSYNC_WEBDAV_USER": servers["MEMOSYNC_TEST_DAV_USER"] ?? "", "MEMOSYNC_WEBDAV_PASSWORD": servers["MEMOSYNC_TEST_DAV_PASSWORD"] ?? ""]
        let library = sandbox.at("library")
        try sandbox.ok(["new", "into a new WebDAV folder"], library: library)
        #expect(!FileManager.default.fileExists(atPath: onDisk))
        expectNoSecret(try sandbox.ok(["sync", "--store", store], library: library, environment: credentials))
        #expect(FileManager.default.fileExists(atPath: onDisk + "/notes/memosync"))
        try FileManager.default.removeItem(atPath: onDisk)
        try sandbox.ok(["new", "after the folder went"], library: library)
        try sandbox.fails(["sync"], status: 1, containing: ["does not exist"], library: library, environment: credentials)
        #expect(!FileManager.default.fileExists(atPath: onDisk), "a remembered folder that vanished was made again")
    }
}

/// Store URLs the command line refuses, without any server.
@Suite struct StoreURLUsageTests {
    @Test func badStoreURLsAreUsageErrors() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        try sandbox.ok(["new", "x"], library: library)
        try sandbox.fails(["sync", "--store", "ftp://host/notes"], status: 2, containing: ["unknown kind of store"], library: library)
        try sandbox.fails(["sync", "--store", "https://me:pw@dav.example.com/notes"], status: 2, containing: ["no user name or password"], library: library)
        try sandbox.fails(["sync", "--store", "s3://Bad_Bucket!/x"], status: 2, library: library)
        try sandbox.fails(["sync", "--store", sandbox.at("store"), "--endpoint", "http://127.0.0.1:1"], status: 2, containing: ["s3://"], library: library)
        try sandbox.fails(
            ["sync", "--store", "s3://bucket/prefix", "--endpoint", "http://127.0.0.1:1"], status: 1, containing: ["no S3 credentials"], library: library,
            environment: ["AWS_SHARED_CREDENTIALS_FILE": sandbox.at("none")])
    }

    /// The store messages come from the catalogs: an invalid store URL in Japanese (the catalog's
    /// sentence around the parser's technical reason), exit status 2; --endpoint without a store in
    /// Korean.
    @Test func storeMessagesFollowTheLocale() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        try sandbox.ok(["new", "x"], library: library)
        let japanese = try sandbox.fails(
            ["sync", "--store", "s3://"], status: 2, containing: ["ストア s3:// を使えません", "s3://BUCKET/PREFIX"], library: library,
            environment: ["LANG": "ja_JP.UTF-8"])
        #expect(!japanese.stderr.contains("cannot use"), "\(japanese)")
        try sandbox.fails(
            ["sync", "--endpoint", "http://127.0.0.1:1"], status: 2, containing: ["--region은 --store s3://BUCKET/PREFIX와 함께"], library: library,
            environment: ["LANG": "ko_KR.UTF-8"])
    }

    /// A credentials file other users can read is named in a note (it works all the same); at
    /// mode 0600 nothing is said.
    @Test func aCredentialsFileOthersCanReadIsNamed() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("library")
        try sandbox.ok(["new", "x"], library: library)
        let file = library + "/store-credentials"
        try "[webdav]\nuser = alice\npassword = secret\n".write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        let open = try sandbox.ok(["sync", "--store", sandbox.at("store")], library: library)
        #expect(open.stderr.contains("can be read by other users") && open.stderr.contains("chmod 600"), "\(open)")
        #expect(!open.stderr.contains("secret"))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        let closed = try sandbox.ok(["sync"], library: library)
        #expect(!closed.stderr.contains("can be read by other users"), "\(closed)")
    }

    /// `memo sync` may create a library, but not for a store URL it cannot use: the URL is
    /// checked first, so a typo creates nothing.
    @Test func aMistypedStoreURLCreatesNoLibrary() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let library = sandbox.at("new-library")
        try sandbox.fails(["sync", "--store", "s3://"], status: 2, containing: ["s3://BUCKET/PREFIX"], library: library)
        #expect(!FileManager.default.fileExists(atPath: library))
    }
}
