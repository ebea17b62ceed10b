import News
import Incremental

/// For the next load of a session: the name of each story's task (its file's path under `content/`) by place, the
/// places in the order of the names, and the engine's mark when the stories were taken from it.
struct StoryIndex: Sendable {
    var names: [String] = []
    var byName: [Int] = []
    var mark: RunMark?
}

/// The stories a load found good, in the edition's order (newest first, then by id), and what the next load of the
/// same session (`newsgen serve`) needs to take them over.
///
/// A story whose task's entry has not changed since the last load (the engine says which changed,
/// `Engine.changes(since:)`) is the story that load made: it stays where it is in that load's arrays, which this
/// load takes over, and only what changed is asked for, removed, replaced or inserted. A load after one saved story
/// so costs what changed and a walk over the names, not a sort of every story and a copy of each out of the engine
/// (a retain per field, and at 100,000 stories a cache miss for each).
struct LoadedStories {
    var stories: [Story] = []
    var facts: [StoryFacts] = []
    var taskIndex = StoryIndex()
    /// The problems of the story files that are not good.
    var problems: [Diagnostic] = []
    /// Every story not taken over from the last load replaces one there with the same file, id and slug, so that no
    /// id or slug is taken twice (none was there): `Edition.crossCheck` need not look.
    var keysAsBefore = false

    /// `keys`: the story tasks of the load, in the order of their names (the listing's: `FileSystem.precedes`).
    /// `previous`: the last load of the same session, taken over (and left nil), with `changed`: the keys whose
    /// entries changed since its mark (nil when the engine cannot say). `value(i)`: the result of `keys[i]`, asked
    /// for every story not taken over. `keepTasks`: record `taskIndex`, for a next load.
    static func collect(keys: [Key], previous: inout LoadedStories?, changed: Set<Key>?, keepTasks: Bool,
                        value: (Int) -> ParsedStory?) -> LoadedStories {
        if var base = previous.take(), let changed, !base.taskIndex.byName.isEmpty,
           base.takeOver(keys: keys, changed: changed, value: value) {
            return base
        }
        return fromNothing(keys: keys, keepTasks: keepTasks, value: value)
    }

    /// Every story from its value.
    private static func fromNothing(keys: [Key], keepTasks: Bool, value: (Int) -> ParsedStory?) -> LoadedStories {
        var loaded = LoadedStories()
        // Held as optionals, to be moved out in the edition's order: a story moved while sorting, or handed to the
        // comparison, is copied.
        var found: [(story: Story, facts: StoryFacts)?] = []
        var foundIndex: [Int] = [], order: [(published: Double, id: String)] = []
        for index in keys.indices {
            guard let parsed = value(index) else { continue }   // failed: the run's failures say why
            loaded.problems += parsed.problems
            guard let story = parsed.story, let facts = parsed.facts else { continue }
            foundIndex.append(index)
            order.append(Self.order(story))
            found.append((story, facts))
        }
        let places = found.indices.sorted { newer(order[$0], order[$1]) }
        loaded.stories.reserveCapacity(places.count)
        loaded.facts.reserveCapacity(places.count)
        var placeOfFound = [Int](repeating: 0, count: found.count)
        for place in places {
            let (story, facts) = found[place].take()!
            placeOfFound[place] = loaded.stories.count
            loaded.stories.append(story)
            loaded.facts.append(facts)
        }
        if keepTasks {
            loaded.taskIndex.names = [String](repeating: "", count: places.count)
            for (found, index) in foundIndex.enumerated() { loaded.taskIndex.names[placeOfFound[found]] = keys[index].name }
            loaded.taskIndex.byName = placeOfFound   // `found` is in the order of the keys
        }
        return loaded
    }

    /// This load (the last one of the session) brought up to date with `keys`, `changed` and `value`; false, and
    /// left half done, when so many stories moved that a load from nothing costs less.
    private mutating func takeOver(keys: [Key], changed: Set<Key>, value: (Int) -> ParsedStory?) -> Bool {
        problems = []
        // Each key's place here when it has one (the same file), and whether its story stays as it is.
        var placeOfKey = [Int?](repeating: nil, count: keys.count)
        var stays = [Bool](repeating: false, count: stories.count)
        // The names are read where they are: a second reference to them would make their changes below copy them.
        var next = 0
        for index in keys.indices {
            let name = keys[index].name
            func nextName() -> String { taskIndex.names[taskIndex.byName[next]] }
            // Equality first: the same string as the last listing's compares without reading it.
            while next < taskIndex.byName.count, nextName() != name, FileSystem.precedes(nextName(), name) { next += 1 }
            guard next < taskIndex.byName.count, nextName() == name else { continue }
            placeOfKey[index] = taskIndex.byName[next]
            stays[taskIndex.byName[next]] = !changed.contains(keys[index])
            next += 1
        }
        // The others, as their values say: in their place when they sort there still, else taken out and put back.
        var moved: [(index: Int, story: Story, facts: StoryFacts)] = []
        keysAsBefore = true
        for index in keys.indices where placeOfKey[index].map({ !stays[$0] }) ?? true {
            let parsed = value(index)
            problems += parsed?.problems ?? []
            guard let story = parsed?.story, let facts = parsed?.facts else { continue }   // a story less takes no key
            guard let place = placeOfKey[index] else {
                keysAsBefore = false
                moved.append((index, story, facts))
                continue
            }
            keysAsBefore = keysAsBefore && stories[place].id == story.id && stories[place].slug == story.slug
            // With the same date and id it sorts where it was among the stories that stay.
            if stories[place].published.secondsSinceEpoch == story.published.secondsSinceEpoch,
               stories[place].id == story.id {
                stories[place] = story
                self.facts[place] = facts
                stays[place] = true
            } else {
                moved.append((index, story, facts))
            }
        }
        // Each one moved costs a move of every story after its place (and a story has some 200 bytes).
        guard moved.count <= 16 else { return false }
        // The stories that go (and those that move), then the ones that move put where they sort.
        var placeOfStory = [Int](repeating: -1, count: stories.count)   // old place → new place
        var kept = 0
        for place in stories.indices where stays[place] {
            placeOfStory[place] = kept
            kept += 1
        }
        if kept < stories.count {
            Self.keep(&stories, stays)
            Self.keep(&facts, stays)
            Self.keep(&taskIndex.names, stays)
        }
        var placeOfNew = [Int?](repeating: nil, count: keys.count)
        for index in keys.indices {
            if let place = placeOfKey[index], stays[place] { placeOfNew[index] = placeOfStory[place] }
        }
        for (index, story, storyFacts) in moved.sorted(by: { Self.newer(Self.order($0.story), Self.order($1.story)) }) {
            var low = 0, high = stories.count
            let order = Self.order(story)
            while low < high {
                let middle = (low + high) / 2
                if Self.newer(Self.order(stories[middle]), order) { low = middle + 1 } else { high = middle }
            }
            stories.insert(story, at: low)
            facts.insert(storyFacts, at: low)
            taskIndex.names.insert(keys[index].name, at: low)
            for other in placeOfNew.indices {
                if let place = placeOfNew[other], place >= low { placeOfNew[other] = place + 1 }
            }
            placeOfNew[index] = low
        }
        taskIndex.byName = placeOfNew.compactMap { $0 }
        return true
    }

    /// The elements whose place in `keep` is true, in their order: moved, not copied.
    private static func keep<T>(_ array: inout [T], _ keep: [Bool]) {
        var kept = 0
        array.withUnsafeMutableBufferPointer { buffer in
            for place in buffer.indices where keep[place] {
                if kept != place { buffer.swapAt(kept, place) }
                kept += 1
            }
        }
        array.removeLast(array.count - kept)
    }

    private static func order(_ story: Story) -> (published: Double, id: String) {
        (story.published.secondsSinceEpoch, story.id)
    }

    /// The edition's order: newest first, then by id (ids are unique among stories that are built, `crossCheck`, so
    /// the order is total).
    private static func newer(_ a: (published: Double, id: String), _ b: (published: Double, id: String)) -> Bool {
        a.published != b.published ? a.published > b.published : a.id < b.id
    }
}
