// The two transformers.js modules a local model loads (src/layers/localModel.ts): the package declares
// types for its root only. Their shapes are spelled out where they are used.
declare module "@xenova/transformers/src/tokenizers.js"
declare module "@xenova/transformers/src/env.js"
