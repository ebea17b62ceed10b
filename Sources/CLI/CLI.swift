public enum CLI { public static func main() {} }
