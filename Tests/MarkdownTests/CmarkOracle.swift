import CCmark

@testable import Markdown

/// The tests' oracle: cmark itself, called straight from the test target so that the product carries no
/// code only the tests use.
extension Markdown {
    /// cmark's own rendering of `source`, without heading ids: the baseline the tests time `render` against.
    static func cmarkOnlyHTML(_ source: String, options: MarkdownOptions = .init()) -> String {
        var flags = options.smartPunctuation ? CMARK_OPT_SMART : CMARK_OPT_DEFAULT
        if options.allowRawHTML { flags |= CMARK_OPT_UNSAFE }
        var source = source
        let rendered = source.withUTF8 { bytes -> UnsafeMutablePointer<CChar>? in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return cmark_markdown_to_html("", 0, flags) }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                cmark_markdown_to_html($0, bytes.count, flags)
            }
        }
        guard let rendered else { return "" }
        defer { freeCmarkString(rendered) }
        return String(cString: rendered)
    }
}
