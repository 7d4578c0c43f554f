// `awhm query`'s common forms, read without @effect/cli: a question and any of the flags below, in any order.
// Anything else (help, --data-dir, --session, --as-of, --postgres-url, `--`, a flag given twice or spelt
// another way, a value a boolean flag could take, no question or two) returns null and goes through the
// full CLI, so its answers and errors stay the contract's.

/** The flags the short path reads: each at most once. */
const BOOLEAN_FLAGS = { "--lexical-only": "lexicalOnly", "--json": "json", "--include-history": "includeHistory", "--trace": "trace" } as const

/** Words @effect/cli may read as a boolean flag's value rather than as the question. */
const BOOLEAN_WORDS = /^(?:true|false|yes|no|on|off|y|n|1|0)$/i

/** The query a short-path argv asks for. */
export interface ShortQuery {
  readonly text: string
  readonly k: number | undefined
  readonly lexicalOnly: boolean
  readonly json: boolean
  readonly includeHistory: boolean
  readonly trace: boolean
}

/** The query of `awhm query …` when argv is one of the forms the short path answers exactly as the full CLI; else null. */
export const shortQuery = (argv: ReadonlyArray<string>): ShortQuery | null => {
  if (argv[2] !== "query") return null
  const flags = { lexicalOnly: false, json: false, includeHistory: false, trace: false }
  const texts: Array<string> = []
  let k: number | undefined
  const rest = argv.slice(3)
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!
    if (arg === "-k") {
      const value = rest[++i]
      if (k !== undefined || value === undefined || !/^[1-9][0-9]{0,5}$/.test(value)) return null
      k = Number(value)
    } else if (Object.hasOwn(BOOLEAN_FLAGS, arg)) {
      const name = BOOLEAN_FLAGS[arg as keyof typeof BOOLEAN_FLAGS]
      if (flags[name]) return null
      flags[name] = true
    } else if (arg.startsWith("-") || arg.trim() === "" || BOOLEAN_WORDS.test(arg)) return null
    else texts.push(arg)
  }
  return texts.length === 1 ? { text: texts[0]!, k, ...flags } : null
}
