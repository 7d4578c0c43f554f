import js from "@eslint/js"
import tseslint from "typescript-eslint"

// The import boundaries of the code map (README): which rooms may import which.
const FACES = "cli|hooks|mcp|eval|api|bin|ui"
const SCHEMA = { name: "@effect/schema", message: "Use effect/Schema" }
const boundary = (files, regex, message) => ({
  files,
  rules: { "no-restricted-imports": ["error", { paths: [SCHEMA], patterns: [{ regex, message }] }] }
})

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", ".cache/**", "coverage/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: "readonly", console: "readonly", Buffer: "readonly", URL: "readonly", setTimeout: "readonly", clearTimeout: "readonly" } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-namespace": "off",
      "no-restricted-imports": ["error", { paths: [SCHEMA] }],
      "require-yield": "off"
    }
  },
  boundary(["src/domain/**"], "^\\.\\./", "domain imports nothing of src outside domain/"),
  boundary(["src/services/**"], "^\\.\\./(?!domain/)", "services import only domain/"),
  boundary(["src/text/**", "src/search/**", "src/store/**", "src/runtime/**"], `^(\\.\\./)+(layers|programs|services|${FACES})/`, "text, search, store and runtime import no services, layers, programs or faces"),
  boundary(["src/programs/**"], `^(\\.\\./)+(layers|${FACES})/`, "programs use service tags: they never import layers or faces"),
  boundary(["src/layers/**"], `^(\\.\\./)+(programs|${FACES})/`, "layers never import programs or faces")
)
