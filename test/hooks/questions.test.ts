import { describe, expect, it } from "@effect/vitest"
import { isOnlyAsking } from "../../src/text/questions.js"

describe("isOnlyAsking", () => {
  it("questions and requests without a fact only ask", () => {
    for (const text of [
      "Which database does staging use?",
      "what's the port",
      "Can you set up the migrations?",
      "Could you look at the failing test.",
      "Fix the failing test in login.ts",
      "Ok, now run the build. Then show me the logs!",
      "Also, tell me what my name is",
      "Would you like me to add tests?",
      "Do I prefer dark mode?"
    ]) expect([text, isOnlyAsking(text)]).toEqual([text, true])
  })

  it("a statement anywhere, or a rule inside a request, carries a fact", () => {
    for (const text of [
      "Our staging database is PostgreSQL 16 on db-stage-2. Can you set up the migrations?",
      "I set up the migrations for PostgreSQL 16 on db-stage-2.",
      "Please always use pnpm.",
      "Use pnpm, not npm.",
      "Will is our DBA.",
      "Also, I prefer pnpm over npm.",
      "Can you remember that I prefer dark mode?",
      "My name is Alice",
      ""
    ]) expect([text, isOnlyAsking(text)]).toEqual([text, false])
  })
})
