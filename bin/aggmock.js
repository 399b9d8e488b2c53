#!/usr/bin/env node
// The CLI, compiled once to dist/ (by `npm run build`: `npm test` runs it first, `npm pack` through `prepack`).
await import('../dist/cli/main.js');
