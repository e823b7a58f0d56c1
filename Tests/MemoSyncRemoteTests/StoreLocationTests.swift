import Foundation
import MemoSync
import Testing

@testable import MemoSyncRemote

/// Store URLs and where credentials come from.
@Suite struct StoreLocationTests {
    @Test func locationsParseAndPrintBack() throws {
        let s3 = try StoreLocation(parsing: "s3://notes-bucket/team/notes", endpoint: "http://127.0.0.1:8333", region: "eu-1")
        #expect(s3 == .s3(bucket: "notes-bucket", prefix: "team/notes/", endpoint: URL(string: "http://127.0.0.1:8333"), region: "eu-1"))
        #expect(s3.text == "s3://notes-bucket/team/notes/?endpoint=http%3A%2F%2F127.0.0.1%3A8333&region=eu-1")
        #expect(try StoreLocation(parsing: s3.text) == s3)
        #expect(s3.description == "S3 bucket notes-bucket, prefix team/notes/, at http://127.0.0.1:8333 (region eu-1)")
        #expect(try StoreLocation(parsing: "s3://b-1") == .s3(bucket: "b-1", prefix: "", endpoint: nil, region: nil))
        let dav = try StoreLocation(parsing: "webdav://cloud.example.com/remote.php/dav/files/me/My%20Notes")
        #expect(dav == .webDAV(folder: URL(string: "https://cloud.example.com/remote.php/dav/files/me/My%20Notes/")!))
        #expect(try StoreLocation(parsing: dav.text) == dav)
        #expect(try StoreLocation(parsing: "http://127.0.0.1:8080/dav/") == .webDAV(folder: URL(string: "http://127.0.0.1:8080/dav/")!))
        #expect(try StoreLocation(parsing: "~/Dropbox/Notes") == .folder(path: "~/Dropbox/Notes"))
        #expect(try StoreLocation(parsing: "file:///mnt/share/notes") == .folder(path: "/mnt/share/notes"))
        #expect(try StoreLocation(parsing: "/mnt/share").kind == "folder")
    }

    @Test func locationsThatCarryCredentialsOrNonsenseAreRefused() {
        for bad in ["", "ftp://x/y", "s3://", "s3://UPPER/x", "s3://key:secret@bucket/x", "s3://bucket/a//b", "s3://bucket/x?token=1",
                    "https://me:pw@host/x", "https://host/x?a=1", "s3://bucket/x?endpoint=ftp://h", "s3://bucket/x?region=a%20b"] {
            #expect(throws: StoreLocationError.self, "\(bad)") { try StoreLocation(parsing: bad) }
        }
        #expect(throws: StoreLocationError.self) { try StoreLocation(parsing: "/tmp/x", endpoint: "http://h") }
    }

    /// A refused location is echoed without its password; ports are checked when the location
    /// is read (Foundation took 99999 and failed only at the request, with "error -1000").
    @Test func refusalsNeverEchoAPasswordAndPortsAreChecked() {
        for (text, secret) in [("https://me:hunter2secret@host/x", "hunter2secret"), ("http://u:pw%40x@127.0.0.1:9/dav", "pw%40x"),
                               ("s3://bucket/x?endpoint=http://key:s3cr3tkey@h:1", "s3cr3tkey"), ("webdav://:onlypw@h/x", "onlypw")] {
            let redacted = StoreLocation.redactingCredentials(text)
            #expect(!redacted.contains(secret) && redacted.contains("•••"), "\(redacted)")
            do {
                _ = try StoreLocation(parsing: text)
                Issue.record("\(text) was accepted")
            } catch {
                #expect(!error.reason.contains(secret), "\(error.reason)")
            }
        }
        #expect(StoreLocation.redactingCredentials("https://host/a@b") == "https://host/a@b")
        #expect(StoreLocation.redactingCredentials("/tmp/x@y") == "/tmp/x@y")
        for bad in ["http://127.0.0.1:99999/dav", "https://h:0/x", "s3://bucket/x?endpoint=http://h:70000"] {
            #expect(throws: StoreLocationError.self, "\(bad)") { try StoreLocation(parsing: bad) }
        }
        #expect((try? StoreLocation(parsing: "http://127.0.0.1:65535/dav")) != nil)
    }

    /// An IPv6 literal host: refused on Linux when read (its URLSession fails every request to
    /// one); bracketed once in requests whichever way Foundation gives the host.
    @Test func ipv6LiteralHosts() throws {
        #if !canImport(Darwin)
        #expect(throws: StoreLocationError.self) { try StoreLocation(parsing: "https://[::1]:8443/dav") }
        #expect(throws: StoreLocationError.self) { try StoreLocation(parsing: "s3://bucket/x?endpoint=http://[::1]:8333") }
        #endif
        let folder = try #require(URL(string: "https://[::1]:8443/dav/"))
        let store = try WebDAVBlobStore(
            configuration: .init(folder: folder, credentials: nil),
            transport: ScriptedTransport { _, _ in .failure(.timedOut) }, environment: FakeRetryClock().environment)
        #expect(try store.url(forKey: "memosync/a.seg") == "https://[::1]:8443/dav/memosync/a.seg")
        #expect(URL(string: try store.url(forKey: "memosync/a.seg")) != nil)
    }

    @Test func credentialsComeFromTheEnvironmentThenTheFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("memosync-credentials-\(UInt64.random(in: 0...UInt64.max))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let library = folder + "/store-credentials"
        try Data("# mine\n[s3]\naws_access_key_id = LIBKEY\naws_secret_access_key = libsecret\n[webdav]\nuser = me\npassword = p=w\n".utf8).write(to: URL(fileURLWithPath: library))
        let shared = folder + "/aws-credentials"
        try Data("[default]\naws_access_key_id=DEFKEY\naws_secret_access_key=defsecret\n[profile work]\naws_access_key_id = WORKKEY\naws_secret_access_key = worksecret\naws_session_token = tok\n".utf8)
            .write(to: URL(fileURLWithPath: shared))
        let fromEnvironment = StoreCredentialSources(environment: ["AWS_ACCESS_KEY_ID": "ENVKEY", "AWS_SECRET_ACCESS_KEY": "envsecret"], credentialsFile: library)
        #expect(try fromEnvironment.s3Credentials() == S3Credentials(accessKeyID: "ENVKEY", secretAccessKey: "envsecret"))
        // `memo help sync`: the session token from AWS_SESSION_TOKEN too.
        let withToken = StoreCredentialSources(
            environment: ["AWS_ACCESS_KEY_ID": "ENVKEY", "AWS_SECRET_ACCESS_KEY": "envsecret", "AWS_SESSION_TOKEN": "envtoken"], credentialsFile: library)
        #expect(try withToken.s3Credentials() == S3Credentials(accessKeyID: "ENVKEY", secretAccessKey: "envsecret", sessionToken: "envtoken"))
        #expect(try StoreCredentialSources(environment: [:], credentialsFile: library).s3Credentials().accessKeyID == "LIBKEY")
        #expect(try StoreCredentialSources(environment: [:], credentialsFile: library).webDAVCredentials() == WebDAVCredentials(user: "me", password: "p=w"))
        let sharedDefault = StoreCredentialSources(environment: ["AWS_SHARED_CREDENTIALS_FILE": shared])
        #expect(try sharedDefault.s3Credentials().accessKeyID == "DEFKEY")
        let work = try StoreCredentialSources(environment: ["AWS_SHARED_CREDENTIALS_FILE": shared, "AWS_PROFILE": "work"]).s3Credentials()
        #expect(work == S3Credentials(accessKeyID: "WORKKEY", secretAccessKey: "worksecret", sessionToken: "tok"))
        #expect(throws: StoreLocationError.self) { try StoreCredentialSources(environment: ["AWS_ACCESS_KEY_ID": "K"]).s3Credentials() }
        do {
            _ = try StoreCredentialSources(environment: ["AWS_SHARED_CREDENTIALS_FILE": folder + "/missing"]).s3Credentials()
            Issue.record("expected no credentials")
        } catch { #expect(error.description.contains("no S3 credentials")) }
        // Region and endpoint from the environment when the location has none.
        let configuration = try StoreCredentialSources(environment: ["AWS_SHARED_CREDENTIALS_FILE": shared, "AWS_REGION": "eu-9", "AWS_ENDPOINT_URL_S3": "https://s3.example.com"])
            .s3Configuration(for: .s3(bucket: "notes", prefix: "", endpoint: nil, region: nil))
        #expect(configuration.region == "eu-9" && configuration.endpoint.absoluteString == "https://s3.example.com" && configuration.addressing == .path)
        #expect(!configuration.description.contains("defsecret") && !configuration.description.contains("DEFKEY"))
        let aws = S3BlobStore.Configuration(bucket: "notes", region: "eu-west-1", credentials: work)
        #expect(aws.endpoint.absoluteString == "https://s3.eu-west-1.amazonaws.com" && aws.addressing == .virtualHosted)
    }

    /// Issue 29, message 12: a store that cannot be opened is told in one sentence in the
    /// user's language; the reason's cause in the catalogs' words when they know it, never an
    /// English reason inside a translation.
    @Test func refusalsAreOneSentenceInTheUsersLanguage() {
        let inTheWay = StoreLocationError("the store is unavailable: mkdir /x/store: a file with this name is in the way")
        let other = StoreLocationError("--endpoint and --region apply to s3:// stores only")
        MemoLanguage.$taskLanguage.withValue(.english) {
            #expect(inTheWay.errorDescription == "The sync store cannot be used: a file with this name is in the way.")
            #expect(other.errorDescription == "The sync store cannot be used: --endpoint and --region apply to s3:// stores only.")
        }
        MemoLanguage.$taskLanguage.withValue(.korean) {
            #expect(inTheWay.errorDescription == "동기화 저장소를 쓸 수 없습니다: 같은 이름의 파일이 가로막고 있습니다.")
            #expect(other.errorDescription == "동기화 저장소를 쓸 수 없습니다.")
        }
        MemoLanguage.$taskLanguage.withValue(.japanese) {
            #expect(inTheWay.errorDescription == "同期ストアを使えません: 同じ名前のファイルが邪魔をしています。")
        }
    }
}

/// A region that is no region name, from the environment or given to a configuration directly,
/// never makes an endpoint of its text (exploratory test of 2026-12-02: "eu west-1" from
/// AWS_REGION trapped on a nil URL, "a/b" made the host "s3.a").
@Suite struct S3RegionNameTests {
    @Test(arguments: ["eu west-1", "eu-west-1\n", "x[y", "%zz", "a/b", "é", ""])
    func aBadRegionIsRefusedOrNeverResolves(region: String) throws {
        let sources = StoreCredentialSources(environment: ["AWS_REGION": region, "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s"])
        let location = try StoreLocation(parsing: "s3://my-bucket/notes")
        if region.isEmpty {
            // An empty variable is unset: the default region.
            #expect(try sources.s3Configuration(for: location).region == "us-east-1")
        } else {
            #expect(throws: StoreLocationError.self) { try sources.s3Configuration(for: location) }
            #expect(throws: StoreLocationError.self) { try StoreLocation(parsing: "s3://my-bucket/notes", region: region) }
        }
        let direct = S3BlobStore.Configuration(bucket: "b", region: region, credentials: .init(accessKeyID: "a", secretAccessKey: "s"))
        #expect(direct.endpoint.host == "region-not-valid.invalid")
        #expect(S3BlobStore.Configuration(bucket: "b", region: "eu-west-1", credentials: .init(accessKeyID: "a", secretAccessKey: "s")).endpoint.host == "s3.eu-west-1.amazonaws.com")
    }
}
