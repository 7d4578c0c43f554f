// The sources import Effect's modules from its index (`import { Effect, Layer } from "effect"`). A bundle whose
// modules load lazily (a dynamic import() anywhere upstream, as the hook's events and Main's Stage 2 clients
// have) initialises that index whole on first use: every one of Effect's modules, FastCheck and all, 1.2 MB of
// the hook bundle's 4.2 MB unminified. This esbuild plugin gives each such import its own module instead
// (`import * as Effect from "effect/Effect"`, what the index re-exports under that name), so a bundle holds and
// runs only the modules used. Type-only names are dropped (types are erased anyway).
import * as fs from "node:fs"

const FROM_INDEX = /import\s*\{([^}]*)\}\s*from\s*"effect"/g

/** The source with each named import from "effect"'s index made a namespace import of that module. */
export const deepEffectImports = (text, file) =>
  text.replace(FROM_INDEX, (_, names) =>
    names
      .split(",")
      .map((raw) => raw.trim())
      .filter((n) => n !== "" && !n.startsWith("type "))
      .map((n) => {
        const [name, alias] = n.split(/\s+as\s+/)
        // The index's lower-case exports (pipe, flow, …) are functions, not modules: none is imported so far.
        if (!/^[A-Z]\w*$/.test(name) || (alias !== undefined && !/^\w+$/.test(alias))) throw new Error(`${file}: cannot import ${n} from effect's module`)
        return `import * as ${alias ?? name} from "effect/${name}"`
      })
      .join("; ")
  )

export const effectDeepImports = {
  name: "awhm-effect-deep-imports",
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, "utf8")
      return text.includes('from "effect"') ? { contents: deepEffectImports(text, args.path), loader: "ts" } : undefined
    })
  }
}
