/**
 * The reference tables of the manual, generated from the option declarations: every
 * command's options (docs/cli.md) and every pipeline config field (docs/pipeline.md).
 * `node scripts/cli-docs.mjs` rewrites the marked blocks of those pages; a test fails when
 * they are stale.
 */
import { z } from 'zod';
import { commands } from '../commands/index.js';
import { pipelineConfigSchema, parserBaseSchema, rerankerSchema, taggerBaseSchema } from '../pipeline/config.js';
import { defaultOf, descriptionOf, optionRows } from '../commands/options.js';
import { globalOptions, usageLine } from './program.js';

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
/** Table text: also keeps 'word<TAB>cluster' from being read as an HTML tag. */
const prose = (text: string): string => cell(text).replace(/</g, '&lt;');
const code = (text: string): string => `\`${cell(text)}\``;

/** Every command's options, defaults and examples; the global options once, before them. */
export async function commandOptions(): Promise<string> {
  const global = optionRows(globalOptions)
    .map((r) => `${code(r.flag)} (${prose(r.description)})`)
    .join(', ');
  const out: string[] = [`Every command also takes ${global}.`, ''];
  for (const [name, entry] of Object.entries(commands)) {
    const command = await entry.load();
    out.push(`### \`structrank ${name}\``, '', `${code(usageLine(name, command))}: ${prose(entry.summary)}.`, '');
    const groups = Object.entries(command.optionGroups ?? {});
    const ungrouped = optionRows(command.options).filter((r) => !groups.some(([, names]) => names.includes(r.name)));
    const sections: Array<[string, typeof ungrouped]> = [
      ['', ungrouped],
      ...groups.map(([title, names]): [string, typeof ungrouped] => [
        title,
        optionRows(command.options).filter((r) => names.includes(r.name)),
      ]),
    ];
    for (const [title, rows] of sections) {
      if (rows.length === 0) continue;
      if (title !== '') out.push(`${title.replace(/:$/, '')}:`, '');
      out.push('| option | type | default | description |', '|---|---|---|---|');
      for (const r of rows) {
        const dflt = r.required ? 'required' : r.default !== undefined ? code(r.default) : '';
        out.push(
          `| ${code(r.value !== undefined ? `${r.flag} ${r.value}` : r.flag)} | ${prose(r.type)} | ${dflt} | ${prose(r.description)} |`,
        );
      }
      out.push('');
    }
    if (command.examples.length > 0) out.push('```sh', ...command.examples, '```', '');
  }
  return out.join('\n').trimEnd();
}

function jsonDefault(value: unknown): string {
  if (value === undefined) return '';
  if (Array.isArray(value) && value.every((v) => typeof v === 'object' && v !== null && 'type' in v)) {
    return value.map((v) => code(JSON.stringify({ type: (v as { type: string }).type }))).join(', ');
  }
  return code(JSON.stringify(value));
}

type Shape = Record<string, z.ZodType>;

function configRows(shape: Shape, prefix: string, out: string[]): void {
  const rows = new Map(optionRows(shape).map((r) => [r.name, r]));
  for (const [key, schema] of Object.entries(shape)) {
    const row = rows.get(key);
    if (key === 'type' || !row) continue;
    const inner = schema instanceof z.ZodObject ? schema : undefined;
    if (inner && Object.keys(inner.shape).length > 0) {
      configRows(inner.shape as Shape, `${prefix}${key}.`, out);
      continue;
    }
    const dflt = row.required ? 'required' : jsonDefault(defaultOf(schema));
    const type = row.type === 'flag' ? 'true or false' : row.type === 'text' ? 'string' : row.type;
    out.push(`| ${code(prefix + key)} | ${prose(type)} | ${dflt} | ${prose(descriptionOf(schema))} |`);
  }
}

/** Every field of the pipeline config, with type, default and meaning: one table per object. */
export function pipelineConfigTables(): string {
  const table = (title: string, shape: Shape, prefix: string): string => {
    const out = [`${title}`, '', '| field | type | default | meaning |', '|---|---|---|---|'];
    configRows(shape, prefix, out);
    return out.join('\n');
  };
  const { base: _base, rerankers: _rerankers, ...top } = pipelineConfigSchema.shape;
  const parts = [
    table(
      'Top level (`rerankers` is a list of the reranker objects below; default: boosting and log-linear):',
      top as Shape,
      '',
    ),
    table(
      '`base` for task `parse` (the chart parser). The fields of the CRF, set to other than their defaults, are refused in a PCFG base (`"crf": false`), where they would be ignored:',
      parserBaseSchema.shape as Shape,
      'base.',
    ),
    table('`base` for task `tag` (the tagger):', taggerBaseSchema.shape as Shape, 'base.'),
  ];
  for (const option of rerankerSchema.options) {
    const type = (option.shape.type as z.ZodLiteral<string>).value;
    parts.push(table(`A reranker \`{"type": "${type}"}\`:`, option.shape as Shape, ''));
  }
  return parts.join('\n\n');
}

/** The generated blocks, by name: each sits between `<!-- generated:NAME -->` and `<!-- end:NAME -->`. */
export async function generatedBlocks(): Promise<Record<string, string>> {
  return { options: await commandOptions(), 'pipeline-config': pipelineConfigTables() };
}

/** Replaces the generated blocks found in `doc`; blocks it does not contain are left out. */
export function fillBlocks(doc: string, blocks: Record<string, string>): string {
  let out = doc;
  for (const [name, body] of Object.entries(blocks)) {
    const begin = `<!-- generated:${name} (scripts/cli-docs.mjs; do not edit) -->`;
    const end = `<!-- end:${name} -->`;
    const a = out.indexOf(begin);
    const b = out.indexOf(end);
    if (a < 0 || b < a) continue;
    out = `${out.slice(0, a + begin.length)}\n${body}\n${out.slice(b)}`;
  }
  return out;
}
