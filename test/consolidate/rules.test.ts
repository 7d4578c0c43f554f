import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { validAt } from "../../src/domain/time.js"
import { consolidatePending, consolidateSession } from "../../src/programs/consolidate.js"
import { at, byContent, say, statements, withStores } from "./support.js"

// Supersession, correction windows, reinforcement and re-assertion (REFERENCE-BEHAVIOUR 4.3, "does better" 1).

const FILLER = "Can you help me write a function?"

const active = (ns: ReadonlyArray<{ content: string; status: string }>) =>
  ns.filter((n) => n.status === "active").map((n) => n.content).sort()

describe("canonical keys through consolidation", () => {
  it.scoped("each family gets the reference's key; keyless statements get none", () =>
    withStores(() =>
      Effect.gen(function* () {
        const texts = [
          "My preferred language is Python",
          "I live in Cape Town",
          "I work at Acme",
          "I prefer dark mode",
          "Never use tabs for indentation",
          "I use Python for scripting"
        ]
        for (const [i, t] of texts.entries()) yield* say("s1", t, i)
        yield* consolidateSession("s1")
        const ns = yield* statements
        expect(texts.map((t) => byContent(ns, t).canonicalKey)).toEqual([
          "fact:my preferred language", "fact:i live in", "fact:i work at", "preference:dark", "policy:use:tabs", null
        ])
      })
    )
  )
})

describe("the correction window (3 messages, same session, preference/policy only)", () => {
  const window = (gap: number, secondSession: boolean) =>
    withStores(() =>
      Effect.gen(function* () {
        yield* say("s1", "I prefer tabs", 0)
        for (let i = 1; i < gap; i++) yield* say("s1", FILLER, i)
        yield* say(secondSession ? "s2" : "s1", "Actually, I prefer spaces", gap)
        yield* consolidatePending()
        return yield* statements
      })
    )

  it.scoped("a correction 3 messages later supersedes the earlier preference", () =>
    Effect.gen(function* () {
      const ns = yield* window(3, false)
      expect(byContent(ns, "I prefer tabs").status).toBe("superseded")
      expect(byContent(ns, "Actually, I prefer spaces").supersedes).toEqual([byContent(ns, "I prefer tabs").id])
    })
  )

  it.scoped("4 messages later it does not", () =>
    Effect.gen(function* () {
      expect(active(yield* window(4, false))).toEqual(["Actually, I prefer spaces", "I prefer tabs"])
    })
  )

  it.scoped("in another session it does not", () =>
    Effect.gen(function* () {
      expect(active(yield* window(1, true))).toEqual(["Actually, I prefer spaces", "I prefer tabs"])
    })
  )

  it.scoped("without a correction marker, preferences and policies add up", () =>
    withStores(() =>
      Effect.gen(function* () {
        yield* say("s1", "Always use black for formatting", 0)
        yield* say("s1", "Always use ruff for linting", 1)
        yield* say("s1", "I prefer dark mode", 2)
        yield* say("s1", "I prefer tabs", 3)
        yield* consolidateSession("s1")
        expect(active(yield* statements)).toEqual([
          "Always use black for formatting", "Always use ruff for linting", "I prefer dark mode", "I prefer tabs"
        ])
      })
    )
  )

  it.scoped("a policy correction within the window supersedes the previous policy, not a preference", () =>
    withStores(() =>
      Effect.gen(function* () {
        yield* say("s1", "I prefer dark mode", 0)
        yield* say("s1", "Always use black for formatting", 1)
        yield* say("s1", "Actually, always use ruff for formatting", 2)
        yield* consolidateSession("s1")
        const ns = yield* statements
        const ruff = byContent(ns, "Actually, always use ruff for formatting")
        expect([ruff.canonicalKey, ruff.supersedes]).toEqual(["policy:use:ruff", [byContent(ns, "Always use black for formatting").id]])
        expect(active(ns)).toEqual(["Actually, always use ruff for formatting", "I prefer dark mode"])
      })
    )
  )
})

describe("facts", () => {
  it.scoped("a fact correction supersedes only its own slot, never another fact", () =>
    withStores(() =>
      Effect.gen(function* () {
        yield* say("s1", "My name is Alice", 0)
        yield* say("s1", "The API endpoint is https://api.v1.example.com", 1)
        yield* say("s1", "I prefer dark mode", 2)
        yield* say("s1", "Actually, the API endpoint is https://api.v2.example.com", 3)
        yield* consolidateSession("s1")
        const ns = yield* statements
        expect(byContent(ns, "The API endpoint is https://api.v1.example.com").status).toBe("superseded")
        expect(active(ns)).toEqual([
          "Actually, the API endpoint is https://api.v2.example.com", "I prefer dark mode", "My name is Alice"
        ])
      })
    )
  )

  it.scoped("the same key supersedes across sessions: valid_to is the new statement's time, supersedes is linked", () =>
    withStores(() =>
      Effect.gen(function* () {
        yield* say("baseline", "My preferred language is Python", 0)
        yield* consolidatePending()
        yield* say("corrections", "Actually, my preferred language is Rust", 90)
        yield* consolidatePending()
        const ns = yield* statements
        const python = byContent(ns, "My preferred language is Python")
        const rust = byContent(ns, "Actually, my preferred language is Rust")
        expect([python.status, python.validFrom, python.validTo]).toEqual(["superseded", at(0), at(90)])
        expect([rust.status, rust.validFrom, rust.validTo, rust.supersedes]).toEqual(["active", at(90), null, [python.id]])
        expect(rust.canonicalKey).toBe("fact:my preferred language")
      })
    )
  )

  it.scoped("a statement with no key never supersedes anything", () =>
    withStores(() =>
      Effect.gen(function* () {
        yield* say("s1", "I use Python for scripting", 0)
        yield* say("s1", "Actually, I use Go for scripting", 1)
        yield* consolidateSession("s1")
        expect(active(yield* statements)).toEqual(["Actually, I use Go for scripting", "I use Python for scripting"])
      })
    )
  )

  it.scoped("a late-consolidated older statement does not displace the newer value", () =>
    withStores(() =>
      Effect.gen(function* () {
        yield* say("early", "My city is Paris", 0)
        yield* say("late", "My city is Berlin", 30)
        yield* consolidateSession("late")
        yield* consolidateSession("early")
        const ns = yield* statements
        const paris = byContent(ns, "My city is Paris")
        const berlin = byContent(ns, "My city is Berlin")
        expect([berlin.status, berlin.supersedes]).toEqual(["active", [paris.id]])
        expect([paris.status, paris.validFrom, paris.validTo]).toEqual(["superseded", at(0), at(30)])
      })
    )
  )
})

describe("template keys on real chats", () => {
  it.scoped("restated preferences, policies and facts, and unrelated ones of one key, supersede nothing; a flipped policy does", () =>
    withStores(() =>
      Effect.gen(function* () {
        const texts = [
          "I prefer combining art therapy with journaling",
          "I prefer combining professional development with personal healing",
          "Always use camelCase for variable names.",
          "Always use camelCase for variable names in JavaScript.",
          "My city is Berlin",
          "My city is Berlin, near the river",
          'The error message is "jwt expired".',
          'The error message is "Cast to ObjectId failed".',
          "If the match score is below 40%, generate suggestions.",
          "The match score is above 40%."
        ]
        for (const [i, t] of texts.entries()) yield* say("s1", t, i)
        yield* say("s2", "Never use camelCase for variable names.", 20)
        yield* consolidatePending()
        const ns = yield* statements
        const never = byContent(ns, "Never use camelCase for variable names.")
        expect([...never.supersedes].sort()).toEqual(
          [byContent(ns, texts[2]!).id, byContent(ns, texts[3]!).id].sort()
        )
        expect(ns.filter((n) => n.status === "superseded").map((n) => n.content).sort()).toEqual([texts[3], texts[2]])
      })
    )
  )
})

describe("episodes", () => {
  it.scoped("outcomes and dated events get no key and never supersede each other", () =>
    withStores(() =>
      Effect.gen(function* () {
        yield* say("s1", "Last night was amazing!", 0)
        yield* say("s1", "Error: the build is broken", 1, "tool_result")
        yield* say("s2", "Last night was terrible, honestly.", 60)
        yield* say("s2", "Error: the build is flaky", 61, "tool_result")
        yield* consolidatePending()
        const ns = yield* statements
        expect(ns.map((n) => [n.content, n.type, n.canonicalKey, n.status])).toEqual([
          ["Last night was amazing!", "episodic", null, "active"],
          ["Error: the build is broken", "episodic", null, "active"],
          ["Last night was terrible, honestly.", "episodic", null, "active"],
          ["Error: the build is flaky", "episodic", null, "active"]
        ])
      })
    )
  )
})

describe("restatements", () => {
  it.scoped("an identical restatement reinforces: one node, access count and provenance merged", () =>
    withStores(() =>
      Effect.gen(function* () {
        yield* say("s1", "I prefer dark mode", 0)
        yield* say("s1", "i prefer dark mode!", 1)
        yield* consolidateSession("s1")
        yield* say("s2", "I prefer dark mode.", 10)
        expect(yield* consolidateSession("s2")).toBe(0)
        const ns = yield* statements
        expect(ns).toHaveLength(1)
        expect([ns[0]!.accessCount, ns[0]!.sourceSessions, ns[0]!.sourceRefs]).toEqual([
          2,
          ["s1", "s2"],
          [{ sessionId: "s1", messageIndex: 0 }, { sessionId: "s1", messageIndex: 1 }, { sessionId: "s2", messageIndex: 0 }]
        ])
      })
    )
  )

  it.scoped("a keyless near-duplicate (embedding ≥ dedup_threshold) reinforces; differing numbers never merge", () =>
    withStores(() =>
      Effect.gen(function* () {
        yield* say("s1", "I use Python for scripting", 0)
        yield* say("s1", "I use Python for my scripting", 1)
        yield* say("s1", "I use Python 3 for scripting", 2)
        yield* consolidateSession("s1")
        const ns = yield* statements
        // The mock embedder ignores function words: the first two are the same vector.
        expect(ns.map((n) => [n.content, n.sourceRefs.length])).toEqual([
          ["I use Python for scripting", 2],
          ["I use Python 3 for scripting", 1]
        ])
      })
    )
  )

  it.scoped("re-asserting an old value makes it current again, and time travel stays right in between", () =>
    withStores(() =>
      Effect.gen(function* () {
        yield* say("s1", "My name is Alice", 0)
        yield* consolidatePending()
        yield* say("s2", "My name is Bob", 60)
        yield* consolidatePending()
        yield* say("s3", "My name is Alice", 120)
        yield* consolidatePending()
        const ns = yield* statements
        expect(active(ns)).toEqual(["My name is Alice"])
        const holder = (moment: string) =>
          ns.filter((n) => validAt(n.validFrom, n.validTo, moment)).map((n) => `${n.content}@${n.sourceSessions[0]}`)
        expect(holder(at(30))).toEqual(["My name is Alice@s1"])
        expect(holder(at(90))).toEqual(["My name is Bob@s2"])
        expect(holder(at(150))).toEqual(["My name is Alice@s3"])
        const bob = byContent(ns, "My name is Bob")
        const current = ns.find((n) => n.status === "active")!
        expect(current.supersedes).toEqual([bob.id])
        // Saying it a fourth time reinforces the current node.
        yield* say("s4", "My name is Alice", 180)
        expect(yield* consolidatePending()).toEqual({ newNodes: 0, sessions: { s4: 0 } })
        expect((yield* statements).find((n) => n.id === current.id)!.sourceSessions).toEqual(["s3", "s4"])
      })
    )
  )
})

describe("scopes", () => {
  it.scoped("nodes take the message's scope; a slot in one project never supersedes another project's", () =>
    withStores(() =>
      Effect.gen(function* () {
        yield* say("a", "The port is 8080", 0, "user", { scope: "/work/a" })
        yield* say("b", "The port is 9090", 1, "user", { scope: "/work/b" })
        yield* say("c", "The port is 7070", 2)
        yield* consolidatePending()
        const ns = yield* statements
        expect(ns.map((n) => [n.content, n.scope, n.status])).toEqual([
          ["The port is 8080", "/work/a", "active"],
          ["The port is 9090", "/work/b", "active"],
          ["The port is 7070", null, "active"]
        ])
      })
    )
  )
})
