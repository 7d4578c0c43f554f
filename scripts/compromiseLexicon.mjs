// compromise builds its tagger's lexicon when it loads: it unpacks its word lists, conjugates, pluralises and
// inflects them (src/2-two/preTagger/model/index.js), then copies the result key by key into its world
// (mergeDeep): 0.15-0.3 s of every process that runs NER. This esbuild plugin does the building once, at
// build time: the bundled model module carries the four word maps as they come out (the same words, values
// and order) and its plugin puts them straight into the world once the rest of its model is merged (the
// plugin's `mutate`, which compromise calls last). The rest of the model stays compromise's own files.
// The build compares the world's model that results with the one compromise itself builds, and fails if
// they differ in anything (keys, values, order).
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { isDeepStrictEqual } from "node:util"
import { pathToFileURL } from "node:url"

const require = createRequire(import.meta.url)
// The package's root (its exports name no subpaths: resolve the CommonJS build and go up from it).
const root = path.resolve(path.dirname(require.resolve("compromise")), "..", "..")
const PRETAGGER = fs.realpathSync(path.join(root, "src", "2-two", "preTagger"))
const MODEL = path.join(PRETAGGER, "model", "index.js")
const PLUGIN = path.join(PRETAGGER, "plugin.js")

/** A word map as one string of keys, a table of distinct values and each key's value index (in key order). */
const pack = (map) => {
  const keys = Object.keys(map)
  if (keys.some((k) => k.includes("\n") || k === "__proto__")) throw new Error("compromise lexicon: a key the packing cannot hold")
  const table = []
  const seen = new Map()
  const codes = keys.map((k) => {
    const v = JSON.stringify(map[k])
    if (v === undefined || !isDeepStrictEqual(JSON.parse(v), map[k])) throw new Error(`compromise lexicon: value of ${k} is not JSON`)
    if (!seen.has(v)) seen.set(v, table.push(map[k]) - 1)
    return seen.get(v)
  })
  return { keys: keys.join("\n"), table, codes }
}

// The four maps, where compromise's merge would have put them (it skips these three keys; fresh arrays per
// key, as its own unpacking gives them).
const FILL = `const __unsafeKey = (k) => k === "__proto__" || k === "constructor" || k === "prototype"
const __fillWords = (into, { keys, table, codes }) => {
  const words = keys.split("\\n")
  for (let i = 0; i < words.length; i++) {
    if (__unsafeKey(words[i])) continue
    const v = table[codes[i]]
    into[words[i]] = Array.isArray(v) ? v.slice() : v
  }
}
export const __awhmFillWords = (model) => {
  const words = JSON.parse(__WORDS__)
  __fillWords(model.one.lexicon, words.lexicon)
  __fillWords(model.one._multiCache, words._multiCache)
  __fillWords(model.two.switches, words.switches)
  __fillWords(model.two.uncountable, words.uncountable)
}`

/** One exact, single occurrence of `from` in `source` replaced, or the build fails (compromise changed). */
const replaceOnce = (file, source, from, to) => {
  const at = source.indexOf(from)
  if (at === -1 || source.indexOf(from, at + 1) !== -1) throw new Error(`compromise lexicon: ${file} no longer has one "${from}"`)
  return source.slice(0, at) + to + source.slice(at + from.length)
}

/** The model module (empty word maps, no expansion, the filler) and the plugin module (calling it from `mutate`). */
const prebuiltSources = async () => {
  const model = (await import(pathToFileURL(MODEL).href)).default
  const words = {
    lexicon: pack(model.one.lexicon),
    _multiCache: pack(model.one._multiCache),
    switches: pack(model.two.switches),
    uncountable: pack(model.two.uncountable)
  }
  let source = fs.readFileSync(MODEL, "utf8")
  const edit = (from, to) => (source = replaceOnce(MODEL, source, from, to))
  edit(
    "import { lexicon, switches, frozenLex } from './lexicon/index.js'",
    "import frozenLex from './lexicon/frozenLex.js'\nconst lexicon = {}\nconst switches = {}\n" +
      FILL.replace("__WORDS__", () => JSON.stringify(JSON.stringify(words)))
  )
  edit("import expandLexicon from './_expand/index.js'", "")
  edit("model = expandLexicon(model)", "")
  let plugin = fs.readFileSync(PLUGIN, "utf8")
  plugin = replaceOnce(PLUGIN, plugin, "import model from './model/index.js'", "import model, { __awhmFillWords } from './model/index.js'")
  plugin = replaceOnce(PLUGIN, plugin, "hooks: ['preTagger'],", "hooks: ['preTagger'],\n  mutate: (world) => __awhmFillWords(world.model),")
  return new Map([[MODEL, source], [PLUGIN, plugin]])
}

/** A value's text with every key in order (RegExps, functions and undefined included), to compare two models exactly. */
const canonical = (v) =>
  v instanceof RegExp
    ? `re:${String(v)}`
    : typeof v === "function"
      ? `fn:${String(v)}`
      : Array.isArray(v)
        ? `[${v.map(canonical).join(",")}]`
        : v !== null && typeof v === "object"
          ? `{${Object.keys(v).map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`
          : v === undefined
            ? "undefined"
            : JSON.stringify(v)

const FILTER = /[\\/]compromise[\\/]src[\\/]2-two[\\/]preTagger[\\/](model[\\/]index|plugin)\.js$/

/** Serves the two edited modules in place of compromise's. */
const serve = (b, sources) =>
  b.onLoad({ filter: FILTER }, async (args) => {
    const source = (await sources).get(args.path)
    return source === undefined ? undefined : { contents: source, resolveDir: path.dirname(args.path), loader: "js" }
  })

/** compromise's world model as the edited modules build it equals the one compromise's own files build. */
const check = async (build, sources) => {
  const out = await build({
    stdin: { contents: 'import nlp from "compromise"\nexport default nlp', resolveDir: root, sourcefile: "check.js" },
    bundle: true,
    platform: "node",
    format: "esm",
    write: false,
    logLevel: "warning",
    plugins: [{ name: "awhm-compromise-lexicon-check", setup: (b) => serve(b, sources) }]
  })
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "awhm-compromise-"))
  try {
    const file = path.join(dir, "check.mjs")
    fs.writeFileSync(file, out.outputFiles[0].text)
    const rebuilt = (await import(pathToFileURL(file).href)).default.world().model
    const own = (await import(pathToFileURL(path.join(root, "src", "three.js")).href)).default.world().model
    if (canonical(rebuilt) !== canonical(own)) throw new Error("compromise lexicon: the prebuilt model differs from the one compromise builds")
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

let prepared = null

/** The plugin (`build` is esbuild's, for the check: run once per process, before the first module is served). */
export const compromiseLexicon = (build) => ({
  name: "awhm-compromise-lexicon",
  setup(b) {
    prepared ??= prebuiltSources().then(async (sources) => {
      await check(build, Promise.resolve(sources))
      return sources
    })
    serve(b, prepared)
  }
})
