// README and `memo help serve`: the address is opened "with $BROWSER or the desktop's opener
// (xdg-open when there is a display, open on macOS)". The $BROWSER path runs for real in
// ServeCommandTests; here, what is chosen when $BROWSER is not set.

import Testing

@testable import memo

@Suite("memo serve's browser opener")
struct BrowserOpenerTests {
    private let url = "http://127.0.0.1:8080/?token=abc"

    @Test func browserComesFirstAndTheAddressIsAnArgument() {
        let command = Runner.browserCommand(for: url, environment: ["BROWSER": " :firefox --new-tab %s:chromium", "DISPLAY": ":0"])
        #expect(command?.executable == "/bin/sh")
        #expect(command?.arguments == ["-c", "firefox --new-tab \"$1\"", "memo", url])
    }

    #if os(Linux)
    @Test func xdgOpenOnlyWhenThereIsADisplay() {
        #expect(Runner.browserCommand(for: url, environment: ["DISPLAY": ":0"])?.executable == "/usr/bin/xdg-open")
        #expect(Runner.browserCommand(for: url, environment: ["WAYLAND_DISPLAY": "wayland-0"])?.arguments == [url])
        #expect(Runner.browserCommand(for: url, environment: [:]) == nil, "no display: nothing is run")
        #expect(Runner.browserCommand(for: url, environment: ["DISPLAY": "", "BROWSER": ""]) == nil)
    }
    #endif
}
