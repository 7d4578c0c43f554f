import { describe, expect, it } from "vitest"
import { normalizeText } from "../../src/text/canonical.js"
import { contentKey } from "../../src/layers/retriever/rank.js"

// The dedup key of two results: the reference's normalised content[:200], whatever the text's length.
const reference = (content: string) => normalizeText(content).slice(0, 200)

const word = "Deploy "
describe("contentKey", () => {
  it("is the normalised first 200 characters of the whole text, also where a long text's head is cut", () => {
    const texts: Array<string> = []
    // Every place the 400th character can fall: inside a whitespace run, on punctuation, on a capital
    // sigma before a letter (a final sigma only when nothing follows), on half of a surrogate pair
    // (Deseret capitals lowercase to other pairs), on a character that lowercases to two.
    for (let at = 380; at <= 420; at++) {
      const head = "x".repeat(at)
      texts.push(head + " ".repeat(30) + "tail ".repeat(200))
      texts.push(head + "?!.,-".repeat(10) + "tail ".repeat(200))
      texts.push(head + "ΟΔΟΣΣ" + "tail ".repeat(200))
      texts.push(head + "\u{10400}\u{10401}".repeat(5) + "tail ".repeat(200))
      texts.push(head + "İİİ" + "tail ".repeat(200))
    }
    // Mostly whitespace or marks up front: the normalised head is short, so the whole text is normalised.
    texts.push(" \n\t".repeat(300) + word.repeat(100))
    texts.push("?-".repeat(300) + word.repeat(100))
    texts.push("a" + " ".repeat(398) + "b ".repeat(400))
    texts.push(word.repeat(200), "Short text.", "")
    for (const t of texts) expect(contentKey(t)).toBe(reference(t))
    expect(contentKey("  Deploy   Friday!  ")).toBe("deploy friday")
  })
})
