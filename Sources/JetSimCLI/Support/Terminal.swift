import Foundation

/// What jetsim needs to know about a terminal: its width, and how to fit a table to it.
enum Terminal {
    /// The width in columns of the terminal on `fd`, or nil when `fd` is not a terminal.
    /// `COLUMNS` (a positive number) wins, as for `ls`; then the kernel's window size.
    static func width(_ fd: Int32) -> Int? {
        guard isatty(fd) == 1 else { return nil }
        if let c = ProcessInfo.processInfo.environment["COLUMNS"], let n = Int(c), n > 0 { return n }
        var size = winsize()
        if ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    /// Fits a table made by `Summary.table` (a title line, a header, a line of dashes
    /// that marks each column, rows) into `width` columns: whole columns are dropped
    /// from the right, never cut mid-word, and a last line names what was left out.
    /// The first column always stays. Text without such a dash line is returned as is.
    static func fit(table text: String, width: Int) -> String {
        // Each block (tables and prose separated by blank lines) is fitted on its own:
        // a second table (the paired differences of --baseline) has its own columns.
        let blocks = text.components(separatedBy: "\n\n")
        guard blocks.count == 1 else { return blocks.map { fit(table: $0, width: width) }.joined(separator: "\n\n") }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        guard let dashIndex = lines.firstIndex(where: { !$0.isEmpty && $0.allSatisfy { $0 == "-" || $0 == " " } }),
              dashIndex > 0 else {
            // Prose: broken between words.
            return lines.map { wrap($0, width: width) }.joined(separator: "\n") + (text.hasSuffix("\n") ? "\n" : "")
        }
        // Column spans from the dash runs (the dash line is ASCII: offsets are characters).
        var spans: [Range<Int>] = []
        var start: Int? = nil
        for (i, ch) in lines[dashIndex].enumerated() {
            if ch == "-" { if start == nil { start = i } } else if let s = start { spans.append(s..<i); start = nil }
        }
        if let s = start { spans.append(s..<lines[dashIndex].count) }
        guard let last = spans.last, last.upperBound > width, spans.count > 1 else {
            return lines.enumerated().map { i, l in i < dashIndex - 1 ? wrap(l, width: width) : l }.joined(separator: "\n")
                + (text.hasSuffix("\n") ? "\n" : "")
        }
        var keep = 1
        while keep < spans.count, spans[keep].upperBound <= width { keep += 1 }
        let cut = spans[keep - 1].upperBound
        let header = Array(lines[dashIndex - 1])
        let dropped = spans[keep...].map { span in
            String(header[min(span.lowerBound, header.count)..<min(span.upperBound, header.count)])
                .trimmingCharacters(in: .whitespaces)
        }
        var out = ""
        for (i, line) in lines.enumerated() {
            // Lines above the header (the title) are prose: broken between words.
            out += (i < dashIndex - 1 ? wrap(line, width: width) : String(line.prefix(cut))) + "\n"
        }
        let note = "(not shown at this width: \(dropped.joined(separator: ", ")); widen the terminal or use --format csv)"
        return out + wrap(note, width: width) + "\n"
    }

    /// Prose broken between words into lines of at most `width` columns.
    static func wrap(_ text: String, width: Int) -> String {
        var lines: [String] = [], line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width { lines.append(line); line = "" }
            line += (line.isEmpty ? "" : " ") + word
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }
}
