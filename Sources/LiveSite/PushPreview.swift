import Hub
import News
import Site

/// The phone preview at `/_newsgen/push/`: for every breaking story what `publish` would do now, and for each
/// device template of `templates/devices/` the alert as a phone shows it. It is drawn from the plan `publish
/// --dry-run` prints (`PublishPlan`), from the site as it is on disk and the ledger as it is (read, never
/// written); no hub connection is needed, because nothing is sent.
enum PushPreview {
    static func page(site: String, ledgerPath: String, now: Timestamp) -> String {
        var body: [String] = []
        let edition: Edition
        do {
            edition = try Edition.load(directory: site, cache: .read)
        } catch {
            return document(title: "Phone preview", body: [problemList("The site does not load, so nothing would be sent:", error.diagnostics.map(\.description))])
        }
        let devices = DeviceCatalog.load(edition)
        if !devices.problems.isEmpty {
            body.append(problemList("publish refuses to send while a device template is broken:", devices.problems.map(\.description)))
        }
        let sent: [String: LedgerRecord]
        do {
            sent = try Ledger.read(path: ledgerPath).byKey
        } catch {
            return document(title: "Phone preview", body: [problemList("publish cannot read the ledger, so nothing would be sent:", ["error: \(error.message)"])])
        }
        let plan = PublishPlan(edition: edition, now: now, sent: sent, devices: devices.kinds)
        let config = edition.config
        body.append("<p class=\"meta\">What <code>newsgen publish</code> would do now (\(escape(now.rfc3339))), with the ledger "
                    + "<code>\(escape(ledgerPath))</code>. Nothing is sent and nothing is written.</p>")
        if plan.entries.isEmpty { body.append("<p>No breaking stories.</p>") }
        for entry in plan.entries {
            let story = entry.story
            var lines: [String] = []
            let title = story.titles[code: config.defaultLanguage.code] ?? story.id
            lines.append("<section class=\"story\" id=\"story-\(escape(story.id))\">")
            lines.append("<h2>\(escape(title))</h2>")
            lines.append("<p class=\"file\"><code>\(escape(story.sourcePath))</code> · id <code>\(escape(story.id))</code></p>")
            var notification: Hub.Notification?
            var warnings: [String] = []
            switch entry {
            case .send(let planned):
                lines.append("<p class=\"action send\"><strong>send</strong> (revision \(planned.revision))</p>")
                notification = planned
            case .skip(_, let reason):
                lines.append("<p class=\"action skip\"><strong>skip</strong>: \(escape(reason))</p>")
                notification = plan.notification(ifSent: story)
            case .held(let planned, let reason, _):
                lines.append("<p class=\"action held\"><strong>held</strong>: \(escape(reason))</p>")
                notification = planned
            case .fail(_, let reason):
                lines.append("<p class=\"action fail\"><strong>FAILED</strong>: \(escape(reason)); not sent</p>")
                warnings.append(reason)
                notification = plan.notification(ifSent: story)
            }
            if let notification {
                if case .send = entry {} else {
                    lines.append("<p class=\"meta\">If it were sent, phones would show:</p>")
                }
                lines.append("<p>Tags: <code class=\"tags\">\(escape(notification.tags.headerValue))</code></p>")
                if let note = notification.filledNote(defaultLanguage: config.defaultLanguage) { warnings.insert(note, at: 0) }
                for warning in warnings { lines.append("<p class=\"warning\">warning: \(escape(warning))</p>") }
                let previews = plan.previews[story.id] ?? DeviceCatalog.previews(notification, kinds: devices.kinds)
                if devices.kinds.isEmpty { lines.append("<p>No device templates in <code>templates/devices/</code>.</p>") }
                lines.append("<div class=\"phones\">")
                for (kind, preview) in zip(devices.kinds, previews) {
                    lines += phone(kind, preview, notification: notification, config: config)
                }
                lines.append("</div>")
            } else {
                for warning in warnings { lines.append("<p class=\"warning\">warning: \(escape(warning))</p>") }
            }
            lines.append("</section>")
            body.append(lines.joined(separator: "\n"))
        }
        return document(title: "Phone preview", body: body)
    }

    /// One device's alert: app name, text in the template's language, deep link, size, headers and payload.
    static func phone(_ kind: DeviceKind, _ preview: DevicePreview, notification: Hub.Notification, config: SiteConfig) -> [String] {
        let language = language(of: kind, config: config)
        let prefix = config.push.propertyPrefix
        let referenced = kind.template.referencedProperties
        let textProperty = referenced.first { $0.hasPrefix(prefix) } ?? (referenced.contains("messageParam") ? "messageParam" : prefix + language.name)
        let text = notification.properties[textProperty] ?? ""
        let linkProperty = referenced.first { $0 == "url" || $0.hasPrefix("Url_") }
        let appName = config.title(in: language)
        var lines = ["<article class=\"phone\" data-device=\"\(escape(kind.name))\">",
                     "<h3>\(escape(kind.name)) <span class=\"lang\">\(escape(language.name)) (\(escape(language.code)))</span></h3>",
                     "<div class=\"screen\" lang=\"\(escape(language.code))\" dir=\"\(language.direction.rawValue)\">",
                     "<div class=\"app\">\(escape(appName))</div>",
                     "<div class=\"alert-text\">\(escape(text))</div>",
                     "</div>"]
        if let linkProperty, let link = notification.properties[linkProperty] {
            lines.append("<p>Opens: <a class=\"deep-link\" href=\"\(escape(link))\">\(escape(link))</a></p>")
        } else {
            lines.append("<p class=\"note\">Opens: the app (this template carries no <code>url</code> or <code>Url_…</code> link)</p>")
        }
        let size = "\(preview.bytes) of \(DevicePreview.payloadLimit) bytes"
        lines.append(preview.isOverLimit ? "<p class=\"warning size\">\(size): over the platform limit; shorten the push text</p>"
                                         : "<p class=\"size\">\(size)</p>")
        lines.append("<details><summary>Payload</summary><pre>\(escape(preview.payload))</pre>")
        for header in preview.headers { lines.append("<pre>\(escape(header.name)): \(escape(header.value))</pre>") }
        lines.append("</details></article>")
        return lines
    }

    /// The language a device template shows: the first `News_<language>` property it uses; the default language
    /// for a template of `messageParam` (or of neither).
    static func language(of kind: DeviceKind, config: SiteConfig) -> Language {
        let prefix = config.push.propertyPrefix
        for name in kind.template.referencedProperties where name.hasPrefix(prefix) {
            if let language = config.languages.first(where: { prefix + $0.name == name }) { return language }
        }
        return config.defaultLanguage
    }

    static func problemList(_ heading: String, _ problems: [String]) -> String {
        "<div class=\"problems\"><p><strong>\(escape(heading))</strong></p><pre>\(problems.map(escape).joined(separator: "\n"))</pre></div>"
    }

    static func escape(_ text: String) -> String { XMLWriter.escapeAttribute(text) }

    static func document(title: String, body: [String]) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title)) · newsgen serve</title>
        <style>
        body { font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 72rem; padding: 1rem 1.5rem; color: #111; }
        .story { border-top: 1px solid #ccc; padding: 1rem 0; }
        .phones { display: flex; flex-wrap: wrap; gap: 1rem; }
        .phone { width: 16rem; border: 10px solid #222; border-radius: 1.6rem; padding: .8rem; background: #f4f4f6; }
        .phone h3 { font-size: .8rem; margin: 0 0 .5rem; color: #555; }
        .screen { background: #fff; border-radius: .8rem; padding: .6rem .8rem; box-shadow: 0 1px 3px rgba(0,0,0,.25); }
        .app { font-size: .75rem; text-transform: uppercase; letter-spacing: .04em; color: #666; }
        .alert-text { font-weight: 600; }
        .phone p, .phone details { font-size: .8rem; overflow-wrap: anywhere; }
        pre { white-space: pre-wrap; overflow-wrap: anywhere; font-size: .75rem; }
        .warning, .fail { color: #a40000; }
        .problems { background: #fee; border: 1px solid #a40000; padding: .5rem 1rem; }
        </style>
        </head>
        <body>
        <h1>\(escape(title))</h1>
        \(body.joined(separator: "\n"))
        </body>
        </html>

        """
    }
}
