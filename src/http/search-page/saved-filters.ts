/**
 * The key user's own filters in the filter form (bundled with client.ts): listed from
 * `/filters/user`, loaded into the form (tag ids named through `/search/tags`), and saved with
 * `POST /filters` (new) or `POST /filters/:id` (the loaded one). Shown only while a key is set.
 */
import { $, api, el, KEY_STORE } from './helpers.js';

interface FilterJson {
  id: number;
  name: string;
  public: boolean;
  hidden_tag_ids: number[];
  spoilered_tag_ids: number[];
  hidden_complex: string;
  spoilered_complex: string;
}

const box = $<HTMLElement>('saved-filters');
const choice = $<HTMLSelectElement>('my-filters');
const nameInput = $<HTMLInputElement>('filter-name');
const publicBox = $<HTMLInputElement>('filter-public');
const status = $<HTMLSpanElement>('save-status');
const form = $<HTMLFormElement>('filter-form');
const field = (name: string) => form.querySelector(`[name="${name}"]`) as HTMLInputElement | HTMLTextAreaElement;

let mine: FilterJson[] = [];

/** Tag names by id, 50 ids a search. */
async function tagNames(ids: readonly number[]): Promise<Map<number, string>> {
  const names = new Map<number, string>();
  for (let i = 0; i < ids.length; i += 50) {
    const chunk = ids.slice(i, i + 50);
    const { status: code, body } = await api<{ tags: { id: number; name: string }[] }>('/search/tags', { q: chunk.map((id) => `id:${id}`).join(' || '), per_page: 50 });
    if (code === 200) for (const t of body.tags) names.set(t.id, t.name);
  }
  return names;
}

/** Tag ids of comma-separated names (an alias's own id; the server stores its target). */
async function tagIds(list: string): Promise<number[] | string> {
  const wanted = [...new Set(list.split(',').map((n) => n.trim().toLowerCase()).filter((n) => n !== ''))];
  if (wanted.length === 0) return [];
  // Each name as a literal term, its syntax characters escaped.
  const q = wanted.map((n) => `name:${n.replace(/[\\,()"*?]/g, '\\$&')}`).join(' || ');
  const { status: code, body } = await api<{ tags: { id: number; name: string }[] }>('/search/tags', { q, per_page: 50 });
  if (code !== 200) return String(body.error ?? `HTTP ${code}`);
  const byName = new Map(body.tags.map((t) => [t.name, t.id]));
  const unknown = wanted.filter((n) => !byName.has(n));
  return unknown.length > 0 ? `unknown tag${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}` : wanted.map((n) => byName.get(n)!);
}

export async function listMyFilters(): Promise<void> {
  box.hidden = !sessionStorage.getItem(KEY_STORE);
  if (box.hidden) return;
  const { status: code, body } = await api<{ filters: FilterJson[] }>('/filters/user', { per_page: 50 }, { fresh: true });
  mine = code === 200 ? body.filters : [];
  const selected = choice.value;
  choice.replaceChildren(el('option', { value: '' }, 'New filter'), ...mine.map((f) => el('option', { value: String(f.id) }, `${f.name}${f.public ? '' : ' (private)'}`)));
  choice.value = mine.some((f) => String(f.id) === selected) ? selected : '';
}

async function load(onLoaded: () => void) {
  const filter = mine.find((f) => String(f.id) === choice.value);
  status.textContent = '';
  if (!filter) return;
  const names = await tagNames([...filter.hidden_tag_ids, ...filter.spoilered_tag_ids]);
  const named = (ids: number[]) => ids.map((id) => names.get(id) ?? `#${id}`).join(', ');
  field('hidden_tags').value = named(filter.hidden_tag_ids);
  field('spoilered_tags').value = named(filter.spoilered_tag_ids);
  field('hidden_complex').value = filter.hidden_complex;
  field('spoilered_complex').value = filter.spoilered_complex;
  nameInput.value = filter.name;
  publicBox.checked = filter.public;
  onLoaded();
}

async function save() {
  const hidden = await tagIds(field('hidden_tags').value);
  const spoilered = await tagIds(field('spoilered_tags').value);
  if (typeof hidden === 'string' || typeof spoilered === 'string') {
    status.textContent = `Not saved: ${typeof hidden === 'string' ? hidden : spoilered}`;
    return;
  }
  const filter = {
    name: nameInput.value,
    public: publicBox.checked,
    hidden_tag_ids: hidden,
    spoilered_tag_ids: spoilered,
    hidden_complex: field('hidden_complex').value,
    spoilered_complex: field('spoilered_complex').value,
  };
  const { status: code, body } = await api<{ filter: FilterJson }>(choice.value ? `/filters/${choice.value}` : '/filters', {}, { json: { filter } });
  if (code !== 200) {
    status.textContent = `Not saved: ${body.error ?? `HTTP ${code}`}`;
    return;
  }
  choice.value = String(body.filter.id);
  await listMyFilters();
  status.textContent = `Saved “${body.filter.name}” (#${body.filter.id}).`;
}

/** Wires the controls; `onLoaded` runs after a filter is loaded into the form (to test it). */
export function setUpSavedFilters(onLoaded: () => void): void {
  choice.addEventListener('change', () => void load(onLoaded));
  $('save-filter').addEventListener('click', () => void save());
  void listMyFilters();
}
