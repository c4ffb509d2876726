/**
 * A rule's splits as variants with weights and an optional rollout schedule
 * (docs/splits.md), one per entity type the rule links. The shares shown are
 * the ones in force now, by this browser's clock, as the server computes
 * them: inside a schedule's window each variant's share moves from its
 * weight's to the schedule's, linearly or in steps. The server checks
 * everything again and names what it refuses.
 */
import type { Rule } from './api';
import { Field } from './ui';

export type Split = Rule['splits'][number];
type Link = Rule['entities'][number];
type SplitType = 'context' | 'prompt';
const TYPES: readonly SplitType[] = ['context', 'prompt'];

/** How far into its window a schedule is at `now`, as the server reads it (src/engine/split.ts scheduleProgress). */
function progressOf(schedule: NonNullable<Split['schedule']>, now: number): number | undefined {
  const start = Date.parse(schedule.start);
  const end = Date.parse(schedule.end);
  if (!Number.isFinite(start) || !Number.isFinite(end) || end <= start) return undefined;
  if (now <= start) return 0;
  if (now >= end) return 1;
  const linear = (now - start) / (end - start);
  return schedule.steps === undefined ? linear : Math.floor(linear * schedule.steps) / schedule.steps;
}

/** Each variant's share in force at `now` (0 to 1); empty when the weights total 0. */
export function sharesNow(split: Split, now: number): number[] {
  const weights = split.variants.map((v) => (Number.isFinite(v.weight) ? v.weight : 0));
  const total = weights.reduce((a, b) => a + b, 0);
  if (total <= 0) return [];
  const from = weights.map((w) => w / total);
  const progress = split.schedule === undefined ? undefined : progressOf(split.schedule, now);
  if (progress === undefined || progress === 0) return from;
  const ends = split.variants.map((v) => split.schedule!.weights[v.name] ?? 0);
  const endTotal = ends.reduce((a, b) => a + b, 0);
  if (endTotal <= 0) return from;
  return from.map((share, i) => share + (ends[i]! / endTotal - share) * progress);
}

const percent = (share: number) => `${(share * 100).toFixed(share > 0 && share < 0.001 ? 4 : 1)}%`;

export function SplitEditor({ splits, entities, names, onChange }: {
  splits: readonly Split[]; entities: readonly Link[]; names: ReadonlyMap<string, string>; onChange: (splits: Split[]) => void;
}) {
  const now = Date.now();
  const replace = (type: SplitType, split: Split | undefined) =>
    onChange([...splits.filter((s) => s.entity_type !== type), ...(split === undefined ? [] : [split])]);
  return (
    <>
      {TYPES.map((type) => {
        const links = entities.filter((e) => e.entity_type === type);
        const split = splits.find((s) => s.entity_type === type);
        if (links.length === 0 && split === undefined) return null;
        const label = (id: string) => names.get(id) ?? id;
        const start = (): Split => ({
          entity_type: type, bucket_by: 'targetingKey',
          variants: links.map((l, i) => ({ name: `v${i + 1}`, entity_id: l.entity_id, weight: 1 })),
        });
        const set = (change: Partial<Split>) => replace(type, { ...split!, ...change });
        const setVariant = (i: number, change: Partial<Split['variants'][number]>) =>
          set({ variants: split!.variants.map((v, j) => (i === j ? { ...v, ...change } : v)) });
        const shares = split === undefined ? [] : sharesNow(split, now);
        return (
          <fieldset key={type} class="split">
            <legend>Split of the {type} links</legend>
            <label class="inline">
              <input type="checkbox" checked={split !== undefined} onChange={(e) => replace(type, e.currentTarget.checked ? start() : undefined)} />
              {' '}Answer one {type} per request (a split)
            </label>
            {split !== undefined && (
              <>
                <Field label={`${type} split bucketing field`} hint="The request field whose value picks the variant: the same value, the same variant.">{(id, hint) => (
                  <input id={id} aria-describedby={hint} value={split.bucket_by} onInput={(e) => set({ bucket_by: e.currentTarget.value })} />
                )}</Field>
                <table class="variants">
                  <caption>Variants, in order (ranges of buckets follow it)</caption>
                  <thead><tr><th scope="col">Name</th><th scope="col">Entity</th><th scope="col">Weight</th><th scope="col">Now</th><th scope="col"><span class="sr-only">Remove</span></th></tr></thead>
                  <tbody>
                    {split.variants.map((v, i) => (
                      <tr key={i}>
                        <td><input aria-label={`${type} variant ${i + 1} name`} value={v.name} onInput={(e) => setVariant(i, { name: e.currentTarget.value })} /></td>
                        <td>
                          <select aria-label={`${type} variant ${i + 1} entity`} value={v.entity_id} onChange={(e) => setVariant(i, { entity_id: e.currentTarget.value })}>
                            {links.map((l) => <option key={l.entity_id} value={l.entity_id}>{label(l.entity_id)}</option>)}
                          </select>
                        </td>
                        <td><input aria-label={`${type} variant ${i + 1} weight`} type="number" min={0} step={1} value={v.weight}
                          onInput={(e) => setVariant(i, { weight: Number(e.currentTarget.value) })} /></td>
                        <td aria-label={`${type} variant ${i + 1} share now`}>{shares.length === 0 ? '–' : percent(shares[i]!)}</td>
                        <td><button type="button" class="secondary" aria-label={`Remove ${type} variant ${i + 1}`}
                          onClick={() => set({ variants: split.variants.filter((_, j) => j !== i) })}>Remove</button></td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                {shares.length === 0 && <p role="alert" class="problem">The weights total 0: at least one must be above 0.</p>}
                <button type="button" class="secondary" onClick={() => set({
                  variants: [...split.variants, { name: `v${split.variants.length + 1}`, entity_id: links[0]?.entity_id ?? '', weight: 0 }],
                })}>Add {type} variant</button>
                <label class="inline">
                  <input type="checkbox" checked={split.schedule !== undefined} onChange={(e) => {
                    if (!e.currentTarget.checked) {
                      const { schedule: _dropped, ...rest } = split;
                      replace(type, rest);
                      return;
                    }
                    const hour = 3_600_000;
                    set({ schedule: {
                      start: new Date(Math.ceil(now / hour) * hour).toISOString(), end: new Date(Math.ceil(now / hour) * hour + 7 * 24 * hour).toISOString(),
                      weights: Object.fromEntries(split.variants.map((v, i) => [v.name, i === split.variants.length - 1 ? 1 : 0])),
                    } });
                  }} />
                  {' '}Roll out on a schedule
                </label>
                {split.schedule !== undefined && (
                  <div class="schedule">
                    <Field label={`${type} rollout start`} hint="ISO 8601 with a zone, e.g. 2030-01-31T09:00:00Z">{(id, hint) => (
                      <input id={id} aria-describedby={hint} value={split.schedule!.start} onInput={(e) => set({ schedule: { ...split.schedule!, start: e.currentTarget.value } })} />
                    )}</Field>
                    <Field label={`${type} rollout end`}>{(id) => (
                      <input id={id} value={split.schedule!.end} onInput={(e) => set({ schedule: { ...split.schedule!, end: e.currentTarget.value } })} />
                    )}</Field>
                    <Field label={`${type} rollout steps`} hint="Empty: linear.">{(id, hint) => (
                      <input id={id} aria-describedby={hint} type="number" min={1} max={1000} value={split.schedule!.steps ?? ''} onInput={(e) => {
                        const { steps: _old, ...rest } = split.schedule!;
                        const text = e.currentTarget.value;
                        set({ schedule: text === '' ? rest : { ...rest, steps: Number(text) } });
                      }} />
                    )}</Field>
                    {split.variants.map((v) => (
                      <Field key={v.name} label={`${type} weight of ${v.name} at the end`}>{(id) => (
                        <input id={id} type="number" min={0} step={1} value={split.schedule!.weights[v.name] ?? 0}
                          onInput={(e) => set({ schedule: { ...split.schedule!, weights: { ...split.schedule!.weights, [v.name]: Number(e.currentTarget.value) } } })} />
                      )}</Field>
                    ))}
                  </div>
                )}
              </>
            )}
          </fieldset>
        );
      })}
    </>
  );
}
