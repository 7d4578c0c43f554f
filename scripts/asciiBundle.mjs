// Node decodes a file that is all ASCII straight into a one-byte string; one non-ASCII character makes the
// whole bundle a two-byte string, twice the bytes to decode, hash and scan on every start (the hook bundle:
// ~3 ms of its read and ~2 ms of its compile, measured). esbuild escapes strings, templates and names (its
// default charset is ascii) but leaves regular expression literals as written (/[–—]/, /['’]s/, …), and a
// minified bundle has no comments: so each character left is escaped here as \uXXXX, the same character in
// a regular expression, a string or a comment. An identity escape (\–) becomes the escape alone.
import * as fs from "node:fs"

/** The text with every non-ASCII character written as \u escapes (UTF-16 code units). */
export const asciiOnly = (text) =>
  text.replace(/(\\*)([^\p{ASCII}])/gu, (_, slashes, char) => {
    const escaped = Array.from({ length: char.length }, (_, i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`).join("")
    // An odd run of backslashes escapes the character itself: its escape stands in for that one.
    return (slashes.length % 2 === 1 ? slashes.slice(1) : slashes) + escaped
  })

/** Rewrites a built file as ASCII (nothing to do when it already is). */
export const asciiFile = (file) => {
  const text = fs.readFileSync(file, "utf8")
  if (/[^\p{ASCII}]/u.test(text)) fs.writeFileSync(file, asciiOnly(text))
}
