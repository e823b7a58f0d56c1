import Foundation
import MemoSync
import Testing

@testable import MemoSyncRemote

/// The retry policy as a pure function, the retries a store makes, how server answers map to
/// `BlobStoreError`, and credentials kept out of every text.
@Suite struct RetryAndErrorTests {
    let policy = RetryPolicy(attemptsMax: 5, baseDelayMilliseconds: 100, maxDelayMilliseconds: 1_000, deadlineMilliseconds: 3_000)

    @Test func backoffDoublesWithFullJitterUpToTheCap() {
        let busy = RetryPolicy.Outcome.answered(status: 503, code: "SlowDown")
        #expect(policy.decision(after: busy, attempt: 1, elapsedMilliseconds: 0, randomUnit: 0.5) == .retry(afterMilliseconds: 50))
        #expect(policy.decision(after: busy, attempt: 2, elapsedMilliseconds: 0, randomUnit: 0.5) == .retry(afterMilliseconds: 100))
        #expect(policy.decision(after: busy, attempt: 3, elapsedMilliseconds: 0, randomUnit: 0.99) == .retry(afterMilliseconds: 396))
        #expect(policy.decision(after: busy, attempt: 4, elapsedMilliseconds: 0, randomUnit: 0.999) == .retry(afterMilliseconds: 799))
        #expect(policy.decision(after: busy, attempt: 4, elapsedMilliseconds: 0, randomUnit: 0) == .retry(afterMilliseconds: 0))
        let capped = RetryPolicy(attemptsMax: 40, baseDelayMilliseconds: 100, maxDelayMilliseconds: 1_000, deadlineMilliseconds: 1_000_000)
        #expect(capped.decision(after: .timedOut, attempt: 35, elapsedMilliseconds: 0, randomUnit: 0.5) == .retry(afterMilliseconds: 500))
    }

    @Test func stopsWhenOutOfAttemptsOrPastTheDeadline() {
        #expect(policy.decision(after: .connectionFailed, attempt: 5, elapsedMilliseconds: 0, randomUnit: 0.5) == .stop)
        #expect(policy.decision(after: .connectionFailed, attempt: 2, elapsedMilliseconds: 2_950, randomUnit: 0.5) == .stop)
        #expect(policy.decision(after: .connectionFailed, attempt: 2, elapsedMilliseconds: 2_900, randomUnit: 0.5) == .retry(afterMilliseconds: 100))
    }

    /// A `Retry-After` in seconds is a floor under the jittered backoff; one past the deadline
    /// stops; an HTTP date or garbage leaves the backoff alone.
    @Test func retryAfterIsAFloorUnderTheBackoff() {
        let busy = RetryPolicy.Outcome.answered(status: 503, code: nil)
        #expect(RetryPolicy.retryAfterMilliseconds(header: "2") == 2_000)
        #expect(RetryPolicy.retryAfterMilliseconds(header: " 0 ") == 0)
        #expect(RetryPolicy.retryAfterMilliseconds(header: "Wed, 21 Oct 2026 07:28:00 GMT") == nil)
        #expect(RetryPolicy.retryAfterMilliseconds(header: "-5") == nil && RetryPolicy.retryAfterMilliseconds(header: nil) == nil)
        #expect(RetryPolicy.retryAfterMilliseconds(header: "99999999999999999") != nil)
        #expect(policy.decision(after: busy, attempt: 1, elapsedMilliseconds: 0, randomUnit: 0.5, retryAfterMilliseconds: 2_000) == .retry(afterMilliseconds: 2_000))
        #expect(policy.decision(after: busy, attempt: 1, elapsedMilliseconds: 0, randomUnit: 0.5, retryAfterMilliseconds: 10) == .retry(afterMilliseconds: 50))
        #expect(policy.decision(after: busy, attempt: 1, elapsedMilliseconds: 1_500, randomUnit: 0.5, retryAfterMilliseconds: 2_000) == .stop)
        #expect(policy.decision(after: busy, attempt: 1, elapsedMilliseconds: 0, randomUnit: 0.5, retryAfterMilliseconds: Int.max / 2) == .stop)
        // Never a retry of what may not succeed, whatever the server asks.
        #expect(policy.decision(after: .answered(status: 403, code: "AccessDenied"), attempt: 1, elapsedMilliseconds: 0, randomUnit: 0.5, retryAfterMilliseconds: 1) == .stop)
    }

    @Test func retriesOnlyWhatMaySucceedLater() {
        for status in [408, 429, 500, 502, 503, 504] {
            #expect(RetryPolicy.isRetryable(.answered(status: status, code: nil)), "\(status)")
        }
        #expect(RetryPolicy.isRetryable(.answered(status: 400, code: "RequestTimeout")))
        #expect(RetryPolicy.isRetryable(.timedOut) && RetryPolicy.isRetryable(.connectionFailed))
        for (status, code) in [(403, "AccessDenied"), (403, "SignatureDoesNotMatch"), (403, "RequestTimeTooSkewed"), (401, nil), (404, "NoSuchBucket"), (400, nil), (412, nil)] {
            #expect(!RetryPolicy.isRetryable(.answered(status: status, code: code)), "\(status) \(code ?? "")")
        }
        #expect(!RetryPolicy.isRetryable(.failedOtherwise))
        // WritingABlobStore.md names the statuses: exactly these of 100...599, every S3 code it
        // names, and through `isTransient` a store's `.server` error the same way.
        for status in 100...599 {
            let named = [408, 429, 500, 502, 503, 504].contains(status)
            #expect(RetryPolicy.isRetryable(.answered(status: status, code: nil)) == named, "\(status)")
            #expect(RetryPolicy.isTransient(.server(status: status, code: "", message: "")) == named, "\(status)")
        }
        for code in ["SlowDown", "InternalError", "RequestTimeout", "ServiceUnavailable"] {
            #expect(RetryPolicy.isRetryable(.answered(status: 400, code: code)), "\(code)")
        }
    }

    private func s3Store(_ transport: ScriptedTransport, _ clock: FakeRetryClock) throws -> S3BlobStore {
        var configuration = S3BlobStore.Configuration(
            bucket: "bucket", endpoint: URL(string: "http://127.0.0.1:9")!,
            credentials: .init(accessKeyID: "AKIASECRETKEYID", secretAccessKey: "very-secret-value", sessionToken: "session-secret"))
        configuration.retryPolicy = policy
        return try S3BlobStore(configuration: configuration, transport: transport, environment: clock.environment, wallClockSeconds: { 1_700_000_000 })
    }

    /// FORMAT.md "Size limit": "the remote stores refuse an answer larger than the limit"
    /// (`StoreLayout.maxListedBlobBytes`), as `tooLarge`, with nothing retried; an answer of
    /// exactly the limit is read.
    @Test func remoteStoresRefuseAnAnswerLargerThanTheLimit() async throws {
        let limit = StoreLayout.maxListedBlobBytes
        let tooLarge = [UInt8](repeating: 7, count: limit + 1)
        let expected = BlobStoreError.tooLarge(key: "k", sizeBytes: limit + 1, limitBytes: limit)
        let s3 = ScriptedTransport { _, _ in .success(HTTPResponse(status: 200, body: tooLarge)) }
        await #expect(throws: expected) { try await self.s3Store(s3, FakeRetryClock()).read(key: "k") }
        #expect(s3.requests.count == 1)
        var davConfiguration = WebDAVBlobStore.Configuration(folder: URL(string: "https://dav.example.com/notes/")!, credentials: nil)
        davConfiguration.retryPolicy = policy
        let dav = ScriptedTransport { _, _ in .success(HTTPResponse(status: 200, body: tooLarge)) }
        let davStore = try WebDAVBlobStore(configuration: davConfiguration, transport: dav, environment: FakeRetryClock().environment)
        await #expect(throws: expected) { try await davStore.read(key: "k") }
        #expect(dav.requests.count == 1)
        let atLimit = ScriptedTransport { _, _ in .success(HTTPResponse(status: 200, body: Array(tooLarge.dropLast()))) }
        #expect(try await s3Store(atLimit, FakeRetryClock()).read(key: "k").count == limit)
    }

    /// FORMAT.md, "Store layout": S3 listings "ask for URL-encoded keys (`encoding-type=url`)";
    /// a WebDAV blob is uploaded under a hidden name and "moved to its key with `Overwrite: F`"
    /// (never replacing a blob there).
    @Test func listingsAskForURLEncodedKeysAndMovesNeverOverwrite() async throws {
        let empty = #"<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>bucket</Name><IsTruncated>false</IsTruncated></ListBucketResult>"#
        let s3 = ScriptedTransport { _, _ in .success(HTTPResponse(status: 200, body: Array(empty.utf8))) }
        _ = try await s3Store(s3, FakeRetryClock()).list(prefix: "memosync/v1/")
        let listing = try #require(s3.requests.first)
        let query = URLComponents(url: listing.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(listing.method == "GET" && query.contains { $0.name == "encoding-type" && $0.value == "url" }, "\(listing.url)")

        var davConfiguration = WebDAVBlobStore.Configuration(folder: URL(string: "https://dav.example.com/notes/")!, credentials: nil)
        davConfiguration.retryPolicy = policy
        let dav = ScriptedTransport { request, _ in
            .success(HTTPResponse(status: request.method == "PUT" || request.method == "MKCOL" ? 201 : request.method == "MOVE" ? 201 : 404))
        }
        let davStore = try WebDAVBlobStore(configuration: davConfiguration, transport: dav, environment: FakeRetryClock().environment)
        try await davStore.write(key: "memosync/v1/0000000000000001/segments/0000000000-0000000001-0000000000000000.seg", bytes: [1, 2, 3])
        let put = try #require(dav.requests.first { $0.method == "PUT" })
        #expect(put.url.lastPathComponent.hasPrefix(".upload-"), "\(put.url)")
        let move = try #require(dav.requests.first { $0.method == "MOVE" }, "\(dav.requests.map(\.method))")
        #expect(move.headers.contains { $0.name.lowercased() == "overwrite" && $0.value == "F" }, "\(move.headers)")
        #expect(move.headers.contains { $0.name.lowercased() == "destination" && $0.value.hasSuffix("0000000000-0000000001-0000000000000000.seg") }, "\(move.headers)")
    }

    @Test func transientFailuresAreRetriedThenSucceed() async throws {
        let clock = FakeRetryClock()
        let transport = ScriptedTransport { _, index in
            switch index {
            case 0: .failure(.connectionLost("reset"))
            case 1: s3Error(503, code: "SlowDown", message: "Please reduce your request rate.")
            case 2: .failure(.timedOut)
            default: .success(HTTPResponse(status: 200, body: [1, 2, 3]))
            }
        }
        let store = try s3Store(transport, clock)
        #expect(try await store.read(key: "memosync/v1/k") == [1, 2, 3])
        #expect(transport.requests.count == 4)
        #expect(clock.delays == [50, 100, 200])
        #expect(store.statistics.retries == 3)
        // Each attempt is signed again (a fresh x-amz-date would differ; the clock is fixed here).
        #expect(transport.requests.allSatisfy { $0.headers.contains { $0.name == "Authorization" } })
    }

    @Test func authenticationErrorsAreNeverRetried() async throws {
        for (code, status) in [("SignatureDoesNotMatch", 403), ("InvalidAccessKeyId", 403), ("RequestTimeTooSkewed", 403), ("AccessDenied", 403)] {
            let transport = ScriptedTransport { _, _ in s3Error(status, code: code, message: "The request was refused.") }
            let store = try s3Store(transport, FakeRetryClock())
            await #expect(throws: BlobStoreError.denied(code: code, message: "The request was refused.")) { try await store.list(prefix: "") }
            #expect(transport.requests.count == 1)
        }
    }

    @Test func serverErrorsCarryTheServersCodeAndMessage() async throws {
        let missing = ScriptedTransport { _, _ in s3Error(404, code: "NoSuchBucket", message: "The specified bucket does not exist") }
        let store = try s3Store(missing, FakeRetryClock())
        await #expect(throws: BlobStoreError.server(status: 404, code: "NoSuchBucket", message: "The specified bucket does not exist")) {
            try await store.read(key: "k")
        }
        let noKey = try s3Store(ScriptedTransport { _, _ in s3Error(404, code: "NoSuchKey", message: "x") }, FakeRetryClock())
        await #expect(throws: BlobStoreError.notFound(key: "k")) { try await noKey.read(key: "k") }
        // A persistent 500 is retried until attempts run out, then reported.
        let broken = ScriptedTransport { _, _ in s3Error(500, code: "InternalError", message: "We encountered an internal error.\u{1b}[31m") }
        let brokenStore = try s3Store(broken, FakeRetryClock())
        await #expect(throws: BlobStoreError.server(status: 500, code: "InternalError", message: "We encountered an internal error. [31m")) {
            try await brokenStore.delete(key: "k")
        }
        #expect(broken.requests.count == 5)
        // No answer at all: unavailable, after the retries.
        let down = ScriptedTransport { _, _ in .failure(.cannotConnect("refused")) }
        await #expect(throws: BlobStoreError.unavailable(reason: "cannot connect (refused) (after 5 attempts)")) {
            try await s3Store(down, FakeRetryClock()).write(key: "k", bytes: [1])
        }
    }

    @Test func preconditionFailedMeansReadBackAndCompare() async throws {
        // Same bytes there: one PUT and one GET. Different (damaged) bytes: replaced by a PUT
        // without the condition.
        for (existing, expectedMethods) in [([UInt8]([7, 7]), ["PUT", "GET"]), ([UInt8]([7]), ["PUT", "GET", "PUT"])] {
            let transport = ScriptedTransport { request, _ in
                if request.method == "GET" { return .success(HTTPResponse(status: 200, body: existing)) }
                let conditional = request.headers.contains { $0.name == "If-None-Match" }
                return conditional ? s3Error(412, code: "PreconditionFailed", message: "At least one of the pre-conditions you specified did not hold") : .success(HTTPResponse(status: 200))
            }
            try await s3Store(transport, FakeRetryClock()).write(key: "memosync/v1/k", bytes: [7, 7])
            #expect(transport.requests.map(\.method) == expectedMethods)
        }
    }

    @Test func credentialsNeverAppearInDescriptionsRequestsOrErrors() async throws {
        let secrets = ["very-secret-value", "session-secret", "AKIASECRETKEYID", "hunter2"]
        let transport = ScriptedTransport { _, _ in s3Error(403, code: "SignatureDoesNotMatch", message: "signature mismatch") }
        let store = try s3Store(transport, FakeRetryClock())
        var texts = [store.description, "\(store.configuration)", "\(store.configuration.credentials)", String(reflecting: store.configuration.credentials)]
        do { _ = try await store.list(prefix: "") } catch {
            texts += [error.description, error.localizedDescription, SyncProblem(.list, storeError: error).description]
        }
        let dav = WebDAVCredentials(user: "me", password: "hunter2")
        let davStore = try WebDAVBlobStore(
            configuration: .init(folder: URL(string: "https://dav.example.com/notes/")!, credentials: dav),
            transport: ScriptedTransport { _, _ in .success(HTTPResponse(status: 401)) }, environment: FakeRetryClock().environment)
        texts += [davStore.description, "\(dav)", String(reflecting: dav)]
        do { _ = try await davStore.list(prefix: "") } catch { texts += [error.description, error.localizedDescription] }
        texts += transport.requests.map(\.url.absoluteString)
        for text in texts {
            for secret in secrets { #expect(!text.contains(secret), "\(text)") }
        }
        #expect(texts.contains { $0.contains("SignatureDoesNotMatch") })
    }

    /// Issue 29: a busy server's `Retry-After` is honoured between attempts and, when they run
    /// out, kept in the error (`.retryLater`), so that a caller that retries (`RetryingBlobStore`,
    /// the next sync) knows the wait; without the header a busy server stays `.unavailable`.
    @Test func aBusyServersRetryAfterIsKeptInTheFinalError() async throws {
        let clock = FakeRetryClock()
        let busy = ScriptedTransport { _, _ in
            var answer = try! s3Error(503, code: "SlowDown", message: "Please reduce your request rate.").get()
            answer.headers["retry-after"] = "1"
            return .success(answer)
        }
        let store = try s3Store(busy, clock)
        await #expect(throws: BlobStoreError.retryLater(afterMilliseconds: 1_000, reason: "the server is busy (HTTP 503 SlowDown)")) {
            try await store.read(key: "k")
        }
        #expect(clock.delays == [1_000, 1_000, 1_000])   // the server's wait; the fourth would pass the 3 s deadline
        #expect(busy.requests.count == 4)
        #expect(RetryPolicy.isTransient(.retryLater(afterMilliseconds: 1_000, reason: "")))
        let plainBusy = try s3Store(ScriptedTransport { _, _ in s3Error(503, code: "SlowDown", message: "") }, FakeRetryClock())
        await #expect(throws: BlobStoreError.unavailable(reason: "the server is busy (HTTP 503 SlowDown); try later")) {
            try await plainBusy.read(key: "k")
        }

        let davClock = FakeRetryClock()
        let dav = ScriptedTransport { _, _ in .success(HTTPResponse(status: 429, headers: ["retry-after": "2"])) }
        var davConfiguration = WebDAVBlobStore.Configuration(folder: URL(string: "https://dav.example.com/notes/")!, credentials: nil)
        davConfiguration.retryPolicy = policy
        let davStore = try WebDAVBlobStore(configuration: davConfiguration, transport: dav, environment: davClock.environment)
        await #expect(throws: BlobStoreError.retryLater(afterMilliseconds: 2_000, reason: "the server is busy (HTTP 429)")) {
            try await davStore.read(key: "k")
        }
        #expect(davClock.delays == [2_000])   // a second wait would start past the 3 s deadline
    }

    @Test func webDAVRefusesPasswordsOverPlainHTTPToOtherHosts() throws {
        let credentials = WebDAVCredentials(user: "me", password: "pw")
        #expect(throws: BlobStoreError.self) {
            try WebDAVBlobStore(configuration: .init(folder: URL(string: "http://dav.example.com/notes/")!, credentials: credentials))
        }
        _ = try WebDAVBlobStore(configuration: .init(folder: URL(string: "http://127.0.0.1:8080/notes/")!, credentials: credentials))
        #expect(throws: BlobStoreError.self) {
            try WebDAVBlobStore(configuration: .init(folder: URL(string: "https://me:pw@dav.example.com/notes/")!, credentials: nil))
        }
    }

    /// A retry loop that ignored cancellation would retry for 1,000 s: the test waits at most
    /// 20 s for the cancelled read to end, then fails (a time limit alone would not end the
    /// wait: awaiting an unstructured task's value is not cancelled with the test).
    @Test func cancellationStopsRetrying() async throws {
        let transport = ScriptedTransport { _, _ in .failure(.connectionLost("reset")) }
        var configuration = S3BlobStore.Configuration(bucket: "bucket", endpoint: URL(string: "http://127.0.0.1:9")!, credentials: .init(accessKeyID: "a", secretAccessKey: "b"))
        configuration.retryPolicy = RetryPolicy(attemptsMax: 1_000, baseDelayMilliseconds: 1_000, maxDelayMilliseconds: 1_000, deadlineMilliseconds: 1_000_000)
        let store = try S3BlobStore(configuration: configuration, transport: transport, environment: .system, wallClockSeconds: { 0 })
        let task = Task { try await store.read(key: "k") }
        try await Task.sleep(nanoseconds: 50_000_000)
        task.cancel()
        let outcome = CancelledReadOutcome()
        Task { await outcome.finish(with: await task.result) }
        var waitedMilliseconds = 0
        while await outcome.result == nil && waitedMilliseconds < 20_000 {
            try await Task.sleep(nanoseconds: 50_000_000)
            waitedMilliseconds += 50
        }
        let result = try #require(await outcome.result, "the cancelled read was still retrying after \(waitedMilliseconds) ms")
        #expect(throws: BlobStoreError.cancelled) { try result.get() }
    }
}

/// How a cancelled read ended, once it has.
private actor CancelledReadOutcome {
    private(set) var result: Result<[UInt8], any Error>?

    func finish(with result: Result<[UInt8], any Error>) { self.result = result }
}
