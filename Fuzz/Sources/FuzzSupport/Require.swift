/// Stops the fuzz run, saying why, when `condition` is false: libFuzzer then keeps the input. Not `precondition`,
/// whose message an optimized build drops.
public func require(_ condition: Bool, _ message: @autoclosure () -> String,
                    file: StaticString = #fileID, line: UInt = #line) {
    if !condition { fatalError(message(), file: file, line: line) }
}
