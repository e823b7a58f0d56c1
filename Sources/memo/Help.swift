// The text of `memo help`.

/// The help pages.
enum Help {
    /// The overview: every command in one line, then the common options and conventions.
    static let overview = """
        memo: offline-first notes that sync through a shared folder

        Usage: memo [--library PATH] COMMAND [ARGUMENTS] [OPTIONS]

        Commands:
          new [TEXT]              create a memo (text from the arguments, else from standard
                                  input, else from your editor); prints the new memo's id
          list [--json]           the memos, most recently changed first
          show ID [--json]        print a memo's text exactly
          edit ID                 edit a memo in $VISUAL or $EDITOR
          edit ID --text TEXT     replace a memo's whole text
          edit ID --insert OFFSET TEXT | --delete OFFSET LENGTH ...
                                  change a memo at character offsets (see 'memo help edit')
          search QUERY [--json]   the memos containing QUERY (ignoring case and accents)
          delete ID               move a memo to the trash
          restore ID              bring a memo back from the trash
          trash [--json]          the memos in the trash
          export ID [--output FILE]
                                  print a memo as plain text, or write it to FILE
          export --all DIR [--force]
                                  write every memo to DIR, one .txt file each
          sync [--store PATH|URL] [--json]
                                  exchange changes with the store folder (remembered)
          status [--json]         this library: its replica id, unsynced edits, last sync
          help [COMMAND]          this help, or the help of one command

        Memo ids: any beginning of a memo's id that no other memo shares works ('memo show
        3fa2'); 'memo list' shows ids shortened to 8 digits or more. Only the memos a command
        applies to are considered first: 'restore' looks in the trash, 'edit' and 'delete' among
        the memos not in the trash, 'show' and 'export' in both.

        Library: the folder holding your memos. Chosen by --library PATH, else the environment
        variable MEMO_LIBRARY, else the per-user data folder ($XDG_DATA_HOME/memosync or
        ~/.local/share/memosync on Linux, ~/Library/Application Support/MemoSync on macOS).

        Exit status: 0 on success, 1 when a command fails (and when 'search' matches nothing, as
        grep does), 2 for a wrong command line. Errors go to standard error as "memo: <message>";
        a failed command changes nothing.
        """

    /// The help of one command.
    static func page(_ command: CommandName) -> String {
        switch command {
        case .help: overview
        case .new: newPage
        case .list: listPage
        case .show: showPage
        case .edit: editPage
        case .search: searchPage
        case .delete: deletePage
        case .restore: restorePage
        case .trash: trashPage
        case .export: exportPage
        case .sync: syncPage
        case .status: statusPage
        }
    }

    /// `memo help new`.
    static let newPage = """
        Usage: memo new [TEXT...]

        Creates a memo and prints its id (32 hexadecimal digits) alone on a line.

        The text is TEXT (several words are joined with single spaces). Without TEXT, it
        is read from standard input when that is not a terminal (echo "Buy milk" | memo
        new), kept exactly as read; on a terminal, your editor ($VISUAL or $EDITOR) opens
        on an empty file. Empty input or an empty file creates nothing; 'memo new ""'
        creates an empty memo. To give text that starts with a dash, put -- before it.
        """

    /// `memo help list`.
    static let listPage = """
        Usage: memo list [--json]

        The memos (not those in the trash), most recently changed first: the short id,
        the time of the last change (local time) and the title (the first line).

        --json  a JSON array of objects: id, title, preview, createdAt, modifiedAt (ISO
                8601, UTC), status.
        """

    /// `memo help show`.
    static let showPage = """
        Usage: memo show ID [--json]

        Prints the memo's text exactly as stored (on a terminal, a final line break is
        added if the text has none). Memos in the trash can be shown too.

        --json  an object: id, title, text, preview, createdAt, modifiedAt, status.
        """

    /// `memo help edit`.
    static let editPage = """
        Usage: memo edit ID
               memo edit ID --text TEXT
               memo edit ID (--insert OFFSET TEXT | --delete OFFSET LENGTH)...

        Without options, opens $VISUAL (or $EDITOR; vi on a terminal when neither is set)
        on a temporary file holding the text, and saves what you write when the editor
        exits successfully. If the text did not end with a line break and the file now
        ends with one (as most editors add), that one line break is dropped.

        --text TEXT              replaces the whole text (only what differs changes, so
                                 edits made elsewhere at the same time survive a sync)
        --insert OFFSET TEXT     inserts TEXT at OFFSET
        --delete OFFSET LENGTH   removes LENGTH characters starting at OFFSET

        OFFSET and LENGTH count Unicode scalars (code points), from 0: "é" written as one
        code point counts 1, "e" plus a combining accent counts 2, an emoji counts 1
        (a flag, 2). Several --insert and --delete options apply in order, each to the
        text as the previous ones left it. If any of them does not fit the text, nothing
        changes. Memos in the trash must be restored before editing.
        """

    /// `memo help search`.
    static let searchPage = """
        Usage: memo search QUERY... [--json]

        The memos whose text contains QUERY, ignoring case, accents and Unicode
        normalization ("cafe" finds "Café"), most recently changed first. Several words
        are searched as one phrase, joined with single spaces. Memos in the trash are
        not searched.

        --json  as 'memo list --json'.

        Exit status: 0 when some memo matched, 1 when none did (nothing is printed but on
        a terminal), 2 for a wrong command line.
        """

    /// `memo help delete`.
    static let deletePage = """
        Usage: memo delete ID

        Moves the memo to the trash ('memo restore ID' brings it back). On other devices
        it moves to the trash at their next sync, unless someone edits it meanwhile.
        """

    /// `memo help restore`.
    static let restorePage = """
        Usage: memo restore ID

        Brings a memo back from the trash. ID may be any unique beginning of the id of a
        memo in the trash ('memo trash' lists them).
        """

    /// `memo help trash`.
    static let trashPage = """
        Usage: memo trash [--json]

        The memos in the trash, most recently changed first, as 'memo list' shows them.
        """

    /// `memo help export`.
    static let exportPage = """
        Usage: memo export ID [--output FILE]
               memo export --all DIR [--force]

        Writes a memo as plain text: to standard output (also with --output -), or to
        FILE (replaced if it exists). With --all, writes every memo not in the trash into the folder DIR
        (created if missing), one UTF-8 .txt file each, named after its title (made safe
        and unique for every common file system). Existing files are not replaced unless
        --force is given: if any would be, nothing is written.
        """

    /// `memo help sync`.
    static let syncPage = """
        Usage: memo sync [--store PATH|URL [--endpoint URL] [--region NAME]] [--json]

        Exchanges changes with the store: a folder shared between your devices (a
        Dropbox, iCloud Drive or Syncthing folder, a network share, a USB stick). Each
        device writes only its own files there; every sync reads what the others wrote
        and publishes this library's new edits. --store PATH names the folder (created
        if missing) and is remembered in the library, so later syncs need no option.

        The store may also be an S3-compatible bucket, s3://BUCKET/PREFIX (AWS, or
        another service with --endpoint URL; --region NAME), or a WebDAV folder,
        https://HOST/PATH or webdav://HOST/PATH. Credentials never go in the URL: S3's
        come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN),
        else the [s3] section of the file store-credentials in the library folder,
        else ~/.aws/credentials (profile AWS_PROFILE or default); WebDAV's from
        MEMOSYNC_WEBDAV_USER and MEMOSYNC_WEBDAV_PASSWORD, else the [webdav] section
        (user, password) of store-credentials. 'memo status' shows the store's kind
        and location, never a credential.

        Prints what happened: blobs read and written, operations received and
        published, and blobs skipped and why (a file still being copied, a damaged
        file, one written by a newer version of MemoSync, one larger than any MemoSync
        blob, a folder that cannot be read, a symbolic link or special file, which are
        never followed). Skipped blobs are tried again at the next sync.

        An operation is one character typed or deleted, or one memo created, trashed,
        restored or purged. "Published N operations" counts this library's operations
        the store did not have (what 'memo status' calls unsynced edits); another
        device that syncs then reports them as received.

        The exit status is 1 when the store could not be used: a sync that could not
        list the store prints only the error; one that met a store error later (a
        failed write) prints its summary and the errors. Either way the last sync time
        ('memo status') stays as it was.

        --json  an object with the report's fields: complete (true when the sync did
                everything), listedStore, blobsListed, blobsRead, bytesRead,
                blobsWritten, bytesWritten, blobsDeleted, operationsApplied (operations
                received), publishedOperations, pendingOperationCount,
                publishedSegment (the last), publishedSegments, publishedSnapshot,
                skipped (objects: key, kind, reason), errors (one line each),
                problems (the same errors as objects: operation, key, error, reason),
                store, replica (this session's id; a library takes a fresh one each
                time it is opened).
                It is printed even when the sync failed.
        """

    /// `memo help status`.
    static let statusPage = """
        Usage: memo status [--json]

        Shows the library folder, this session's replica id (a library takes a fresh
        one each time it is opened, so that copies of it never share one) and the
        earlier ids it still publishes under, how many memos it holds, how many of its
        operations it has not published to a store yet (unsynced edits; an operation is
        one character typed or deleted, or one memo created, trashed, restored or
        purged, as 'memo sync' counts them), when it last synced completely, and the
        remembered store folder.

        --json  an object: library, replica, lineage (the newest 8 ids this library
                made edits under), lineageCount, memos,
                trashedMemos, unsyncedEdits (also as unpublishedOperations), lastSync
                (ISO 8601 or null), store (or null).
        """
}
