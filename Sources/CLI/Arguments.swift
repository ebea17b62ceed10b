import News
import Site

/// A usage mistake: printed with the command's usage, exit code 64.
public struct UsageError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var command: String?
    public var description: String { message }
}

/// A small argument parser in the swift-argument-parser style: `--flag`, `--option VALUE`,
/// `--option=VALUE`, did-you-mean for misspelled options, and the short spellings in `shortNames`.
struct ParsedArguments {
    /// Short spelling → long name. A short name is accepted only by commands that know its long name, so
    /// `check -q` is an unknown option like `check --quiet`. Results are always keyed by the long name.
    static let shortNames = ["-h": "--help", "-q": "--quiet"]

    var flags: Set<String> = []
    var options: [String: String] = [:]
    var positional: [String] = []

    /// `allowed`: how many positional arguments the command takes; one more is an error (unless help is asked for).
    init(_ arguments: [String], command: String, flags knownFlags: [String], options knownOptions: [String],
         positional allowed: Int = 0) throws(UsageError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                positional += arguments[index...]
                break
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                positional.append(argument)
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            if let long = Self.shortNames[name], knownFlags.contains(long) || knownOptions.contains(long) { name = long }
            if knownFlags.contains(name) {
                if inlineValue != nil { throw UsageError(message: "\(name) takes no value", command: command) }
                flags.insert(name)
            } else if knownOptions.contains(name) {
                if let inlineValue {
                    options[name] = inlineValue
                } else if index < arguments.count {
                    options[name] = arguments[index]
                    index += 1
                } else {
                    throw UsageError(message: "\(name) needs a value", command: command)
                }
            } else {
                let known = knownFlags + knownOptions
                var message = "unknown option '\(name)' for '\(command)'"
                if let close = Suggestion.closest(to: name, in: known) { message += "; did you mean '\(close)'?" }
                throw UsageError(message: message, command: command)
            }
        }
        if !flags.contains("--help"), positional.count > allowed {
            throw UsageError(message: "unexpected argument '\(positional[allowed])'", command: command)
        }
    }
}
