import FuzzSupport
import YAML

/// libFuzzer's entry point: the input as a YAML document, its tree then read the way newsgen.yml and front
/// matter are read.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzYAML(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        if let root = try YAMLDocument.parse(text, lineOffset: 1) { read(root) }
    } catch {
        require(error.location.line >= 1 && error.location.column >= 1, "error outside the text: \(error)")
    }
    return 0
}

private func read(_ node: YAMLNode) {
    require(node.location.line >= 1 && node.location.column >= 1, "node outside the text: \(node.location)")
    _ = (node.string, node.bool, node.int, node.isNull, node.kindName)
    if let entries = node.mapping {
        for entry in entries {
            read(entry.key)
            read(entry.value)
            if let key = entry.key.string { _ = node[key] }
        }
    }
    node.sequence?.forEach(read)
}
