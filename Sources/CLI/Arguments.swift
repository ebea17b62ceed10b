/// A usage mistake: printed with the command's usage, exit code 64.
public struct UsageError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var command: String?
    public var description: String { message }
}

/// A small argument parser in the swift-argument-parser style: `--flag`, `--option VALUE`,
/// `--option=VALUE`, did-you-mean for misspelled options.
struct ParsedArguments {
    var flags: Set<String> = []
    var options: [String: String] = [:]
    var positional: [String] = []

    init(_ arguments: [String], command: String, flags knownFlags: [String], options knownOptions: [String]) throws(UsageError) {
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
            if name == "-h" { name = "--help" }
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
                if let close = closest(name, known) { message += "; did you mean '\(close)'?" }
                throw UsageError(message: message, command: command)
            }
        }
    }
}

func closest(_ value: String, _ candidates: [String]) -> String? {
    func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
    let scored = candidates.map { ($0, distance(Array(value), Array($0))) }.filter { $0.1 <= 3 }
    return scored.min { $0.1 < $1.1 }?.0
}
