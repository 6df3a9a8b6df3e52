#!/usr/bin/env node
// Greedy generation with ONNX Runtime (npm onnxruntime-node) on the decoding
// step bench/export_generate_onnx.py exports: the prompt once with empty
// pasts, then one token per run, the presents fed back as the pasts, the
// argmax taken here. Prints JSON {"prefill_ms", "step_ms", "total_ms",
// "tokens"} (best total over the repetitions) and writes the tokens.
//
//   generate_ort.js STEP.onnx PROMPT.npy --new N [--threads T]
//       [--repetitions R] [--tokens-out FILE.json]
'use strict';
const fs = require('fs');
const path = require('path');

function loadNpyInt64(file) {
  const buf = fs.readFileSync(file);
  const major = buf[6];
  const headerLen = major >= 2 ? buf.readUInt32LE(8) : buf.readUInt16LE(8);
  const start = major >= 2 ? 12 : 10;
  const header = buf.toString('latin1', start, start + headerLen);
  if (!/'descr':\s*'<i8'/.test(header)) throw new Error(`${file}: not int64`);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1]
                    .split(',').map(s => s.trim()).filter(s => s).map(Number);
  const data = buf.subarray(start + headerLen);
  return {data: new BigInt64Array(data.buffer.slice(data.byteOffset,
                                                    data.byteOffset + data.byteLength)),
          shape};
}

async function main() {
  const args = process.argv.slice(2);
  let threads = 1, repetitions = 1, steps = 16, tokensOut = null;
  const positional = [];
  for (let i = 0; i < args.length; ++i) {
    if (args[i] === '--threads') threads = Number(args[++i]);
    else if (args[i] === '--repetitions') repetitions = Number(args[++i]);
    else if (args[i] === '--new') steps = Number(args[++i]);
    else if (args[i] === '--tokens-out') tokensOut = args[++i];
    else positional.push(args[i]);
  }
  const [modelPath, promptPath] = positional;
  const ort = require(process.env.ORT_NODE ||
                      path.join(__dirname, '..', 'build', 'ort', 'node_modules',
                                'onnxruntime-node'));
  const session = await ort.InferenceSession.create(modelPath, {
    intraOpNumThreads: threads, interOpNumThreads: 1,
    executionMode: 'sequential', graphOptimizationLevel: 'all'});
  const pastNames = session.inputNames.filter(n => n.startsWith('past_'));
  const prompt = loadNpyInt64(promptPath);
  let best = null;
  for (let r = 0; r < repetitions; ++r) {
    // Shapes from the first past: [1, H, 0, D] empty.
    const feeds = {input_ids: new ort.Tensor('int64', prompt.data, prompt.shape)};
    const heads = Number(process.env.GPT_HEADS || 12), dim = Number(process.env.GPT_HEAD_DIM || 64);
    for (const n of pastNames)
      feeds[n] = new ort.Tensor('float32', new Float32Array(0), [1, heads, 0, dim]);
    const tokens = [];
    const start = process.hrtime.bigint();
    let first = 0n;
    for (let s = 0; s < steps; ++s) {
      const out = await session.run(feeds);
      const logits = out.logits.data;
      let arg = 0;
      for (let v = 1; v < logits.length; ++v) if (logits[v] > logits[arg]) arg = v;
      tokens.push(arg);
      if (s === 0) first = process.hrtime.bigint();
      feeds.input_ids = new ort.Tensor('int64', BigInt64Array.from([BigInt(arg)]), [1, 1]);
      for (const n of pastNames) feeds[n] = out[n.replace('past_', 'present_')];
    }
    const end = process.hrtime.bigint();
    const total = Number(end - start) / 1e6, prefill = Number(first - start) / 1e6;
    const run = {prefill_ms: prefill, step_ms: (total - prefill) / Math.max(1, steps - 1),
                 total_ms: total, tokens: tokens.length, ids: tokens};
    if (!best || run.total_ms < best.total_ms) best = run;
  }
  if (tokensOut) fs.writeFileSync(tokensOut, JSON.stringify(best.ids));
  delete best.ids;
  process.stdout.write(JSON.stringify(best) + '\n');
}

main().catch(e => { console.error(e.message || e); process.exit(1); });
