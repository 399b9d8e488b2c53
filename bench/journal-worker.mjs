/**
 * The worker thread of the callbacks benchmark's worker-journal probe (bench/callbacks.ts): it
 * opens the outbox file on its own connection and commits each batch of rows the engine's thread
 * posts, with the Outbox's own statements (dist/callbacks/outbox-rows.js), then answers with the
 * batch's number. Plain JavaScript: a worker thread does not inherit tsx's loader on Node 20.
 *
 * A batch: `{ seq, inserts, attempts, updates }`, each a list of the values one statement binds.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';

const { root, path } = workerData;
const dist = (file) => import(pathToFileURL(join(root, 'dist', file)).href);
const { openDatabase } = await dist('callbacks/index.js');
const { OUTBOX_WRITES } = await dist('callbacks/outbox-rows.js');
const db = openDatabase(path);
const insert = db.prepare(OUTBOX_WRITES.insertEvent);
const journal = db.prepare(OUTBOX_WRITES.journal);
const update = db.prepare(OUTBOX_WRITES.updateEvent);
const commit = db.transaction((batch) => {
  for (const values of batch.inserts) insert.run(...values);
  for (const values of batch.attempts) journal.run(...values);
  for (const values of batch.updates) update.run(...values);
});
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.postMessage('closed');
    return;
  }
  try {
    commit(message);
  } catch (error) {
    // Said to the engine's thread, which fails the run: a probe that stops committing must not hang it.
    parentPort.postMessage({ error: `the journal worker could not commit batch ${message.seq}: ${error.message}` });
    return;
  }
  parentPort.postMessage(message.seq);
});
parentPort.postMessage('ready');
