/** The search workbench page's style sheet: light and dark, one column on a phone. */
export const SEARCH_PAGE_CSS = `
:root { color-scheme: light dark; --fg: #1d2430; --muted: #5b6472; --bg: #fff; --panel: #f5f7fa; --line: #d8dde5; --accent: #2a5db0; --bad: #c0392b; --good: #1f7a4d; }
@media (prefers-color-scheme: dark) { :root { --fg: #e3e7ee; --muted: #a4adba; --bg: #14171c; --panel: #1c2027; --line: #323844; --accent: #7aa7f0; --bad: #ff7b6b; --good: #5cc592; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; padding: .75rem 1rem; border-bottom: 1px solid var(--line); }
header h1 { margin: 0; font-size: 1.2rem; }
[role=tablist] { display: flex; gap: .25rem; }
[role=tab] { font: inherit; padding: .3rem .8rem; border: 1px solid var(--line); border-radius: 999px; background: var(--panel); color: var(--fg); cursor: pointer; }
[role=tab][aria-selected=true] { background: var(--accent); color: var(--bg); border-color: var(--accent); }
.key { margin-left: auto; display: flex; gap: .4rem; align-items: center; color: var(--muted); font-size: .85rem; }
.key input { width: 12rem; max-width: 40vw; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
input, textarea { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: .45rem .6rem; }
input:focus-visible, textarea:focus-visible, button:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
.qbox { position: relative; }
#q, #q-mirror { width: 100%; font: 16px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; padding: .6rem .7rem; white-space: pre; }
#q { position: relative; background: transparent; z-index: 1; }
#q[aria-invalid=true] { border-color: var(--bad); }
#q-mirror { position: absolute; inset: 0; overflow: hidden; color: transparent; border: 1px solid transparent; pointer-events: none; }
mark.err { background: transparent; color: transparent; text-decoration: underline wavy var(--bad); text-decoration-thickness: 2px; text-underline-offset: 4px; }
code mark.err { color: var(--bad); }
#suggestions { position: absolute; z-index: 2; left: 0; right: 0; top: 100%; margin: 2px 0 0; padding: .25rem 0; list-style: none; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; box-shadow: 0 6px 18px rgba(0,0,0,.15); max-height: 18rem; overflow: auto; }
#suggestions li { display: flex; justify-content: space-between; gap: 1rem; padding: .3rem .7rem; cursor: pointer; }
#suggestions li[aria-selected=true] { background: var(--panel); outline: 1px solid var(--accent); }
#suggestions .how { color: var(--muted); font-size: .8rem; }
#suggestions .kind-field .label { font-family: ui-monospace, monospace; }
#suggestions .cat-character .label { color: #2e8b57; } #suggestions .cat-rating .label { color: #3d78c4; } #suggestions .cat-origin .label { color: #8a52c4; }
#q-error { color: var(--bad); min-height: 1.4em; margin: .35rem 0; }
details { margin: .25rem 0 .75rem; } summary { cursor: pointer; color: var(--muted); }
pre { background: var(--panel); padding: .6rem; border-radius: 6px; overflow: auto; max-height: 20rem; font-size: .85rem; }
#count { font-weight: 600; margin: .5rem 0; }
#results { display: grid; grid-template-columns: repeat(auto-fill, minmax(120px, 1fr)); gap: .5rem; }
.thumb { position: relative; padding: 0; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); overflow: hidden; aspect-ratio: 1; cursor: pointer; }
.thumb img { width: 100%; height: 100%; object-fit: cover; display: block; transition: filter .2s; }
.thumb.spoilered img { filter: blur(14px) saturate(.6); }
.thumb .badge { position: absolute; left: .3rem; bottom: .3rem; font-size: .7rem; background: rgba(0,0,0,.65); color: #fff; padding: 0 .35rem; border-radius: 3px; }
#filter-panel { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1rem; margin: 1rem 0; padding: 1rem; border: 1px solid var(--line); border-radius: 8px; background: var(--panel); }
#filter-panel[hidden] { display: none; }
#filter-panel > * { min-width: 0; }
#filter-form { display: grid; gap: .5rem; align-content: start; }
#filter-form label { display: grid; gap: .2rem; align-content: start; font-size: .85rem; color: var(--muted); }
#filter-form input, #filter-form textarea { width: 100%; min-width: 0; }
#filter-form textarea { height: 4.5rem; resize: vertical; font-family: ui-monospace, monospace; }
#filter-form textarea[aria-invalid=true] { border-color: var(--bad); }
.row { display: flex; gap: .5rem; align-items: start; } .row > * { flex: 1; min-width: 0; }
button.primary { font: inherit; padding: .45rem 1rem; border-radius: 6px; border: 0; background: var(--accent); color: var(--bg); cursor: pointer; }
button.link { font: inherit; border: 0; background: none; color: var(--accent); padding: 0 .15rem; cursor: pointer; text-decoration: underline; }
#filter-error { color: var(--bad); overflow-wrap: anywhere; } #filter-error code { display: block; margin-top: .25rem; white-space: pre; overflow-x: auto; }
.numbers { font-size: 1.05rem; } .numbers strong { font-size: 1.3rem; }
.part h3, #why h3 { font-size: 1rem; margin: .75rem 0 .25rem; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; } th, td { text-align: left; border-top: 1px solid var(--line); padding: .2rem .4rem; }
ul.clauses, ul.clauses ul { list-style: none; padding-left: 1rem; margin: .2rem 0; } ul.clauses { padding-left: 0; }
ul.clauses code { background: var(--bg); padding: 0 .25rem; border-radius: 3px; }
li.yes > .mark { color: var(--good); font-weight: 700; } li.no > .mark { color: var(--bad); font-weight: 700; }
#hint { margin: .25rem 0; } #hint .dym { display: block; }
.bar { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; margin: .5rem 0; } .bar #count { margin: 0 auto 0 0; }
.bar select, .bar button, #pager button { font: inherit; padding: .3rem .5rem; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); color: var(--fg); }
#image-id { width: 6.5rem; }
#saved-filters[hidden] { display: none; } #saved-filters { align-items: end; } #filter-form label.check { display: flex; gap: .3rem; align-items: center; } #filter-form label.check input { width: auto; } #saved-filters p { margin: 0; }
#image-panel { margin: .5rem 0 1rem; padding: .75rem 1rem; border: 1px solid var(--line); border-radius: 8px; background: var(--panel); overflow-wrap: anywhere; }
#image-panel[hidden], #image-panel:has(#why:empty) { display: none; }
.opened { display: flex; gap: 1rem; align-items: start; } .opened img { width: 120px; border-radius: 6px; flex: none; } .opened .tags { margin: 0; }
#why h4 { margin: .6rem 0 .2rem; font-size: .95rem; }
#pager { display: flex; gap: 1rem; justify-content: center; align-items: center; margin: 1rem 0; } #pager[hidden] { display: none; }
ul.clauses code { white-space: pre-wrap; overflow-wrap: anywhere; }
.hint { color: var(--muted); font-size: .85rem; }
@media (max-width: 700px) {
  #filter-panel { grid-template-columns: 1fr; }
  .key { margin-left: 0; width: 100%; } .key input { flex: 1; max-width: none; }
  #results { grid-template-columns: repeat(auto-fill, minmax(96px, 1fr)); }
  .row { flex-direction: column; align-items: stretch; } .opened { flex-direction: column; }
}
`;
