#!/usr/bin/env node
// The CLI, compiled once to dist/ (by `npm run build`, which `npm ci` and `npm pack` run through `prepare`).
await import('../dist/cli/main.js');
