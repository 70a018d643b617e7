// JupyterLab shows the book's chapters through jupyterlab-myst, which knows neither the
// roles of myst-nb's glue nor those of sphinxcontrib-bibtex: a glued number shows as its
// name ("entropy_t1:.2f"), a citation as its BibTeX key, and each chapter's reference list
// as an "Unknown Directive" box. This plugin puts in what the built book shows:
//
// * {glue:text}`name:spec`: the value that the notebook's own glue(...) output holds
//   (the stored one, or the one of the last run), formatted as myst-nb formats it
//   (./format.js, checked against myst-nb by tests/test_lab_prose.py);
// * {footcite:p}`key` and {footcite:t}`key`: "[n]" and "Author [n]", numbered in the order
//   of first citation in the notebook, as the book numbers its footnotes;
// * {footbibliography}: the numbered list of the notebook's references;
// * an interactive figure's static rendering, which JupyterLab shows until the cell is run
//   (it runs no script of a notebook it does not trust, so its sliders would not move):
//   the controls disabled, and a note that running the cell makes them live.
//
// It reads the markdown sources and the outputs from the notebook's model, and rewrites
// only the spans jupyterlab-myst rendered for those roles (a bare <span> whose whole text
// is the role's content, outside math). References come from book/references.bib, written to
// static/references.json by `make setup` (tools/lab_setup.py).

'use strict';

const { formatGlue } = require('./format.js');

const GLUE_ROLE = /\{glue:text\}`([^`]+)`/g;
const CITE_ROLE = /\{footcite(?::(p|t))?\}`([^`]+)`/g;
const RECORD = 'application/papermill.record/text/plain';
const MARK = 'data-mmir-role';
const READ_DELAY_MS = 300;

let references = null;

function loadReferences() {
  if (references === null) {
    const config = document.getElementById('jupyter-config-data');
    const base = config ? JSON.parse(config.textContent).baseUrl || '/' : '/';
    references = fetch(`${base}lab/extensions/mmir-lab-prose/static/references.json`)
      .then((response) => (response.ok ? response.json() : {}))
      .catch(() => ({}));
  }
  return references;
}

function sourceOf(cell) {
  return Array.isArray(cell.source) ? cell.source.join('') : cell.source || '';
}

// What the notebook's model says: glue role -> text, cited keys in order of first citation.
function readNotebook(model, bib) {
  const cells = model.toJSON().cells;
  const values = {};
  for (const cell of cells) {
    for (const output of cell.outputs || []) {
      const name = output.metadata && output.metadata.scrapbook && output.metadata.scrapbook.name;
      if (name && output.data && RECORD in output.data) values[name] = sourceOf({ source: output.data[RECORD] });
    }
  }
  const glue = {};
  const cited = [];
  const cites = {};
  for (const cell of cells.filter((c) => c.cell_type === 'markdown')) {
    const source = sourceOf(cell);
    for (const [, role] of source.matchAll(GLUE_ROLE)) {
      const colon = role.lastIndexOf(':');
      const [key, spec] = colon < 0 ? [role, ''] : [role.slice(0, colon), role.slice(colon + 1)];
      if (key in values) {
        const text = formatGlue(values[key], spec);
        if (text !== null) glue[role] = text;
      }
    }
    for (const [, mode, keys] of source.matchAll(CITE_ROLE)) {
      const parts = keys.split(',').map((k) => k.trim());
      for (const key of parts) if (!cited.includes(key)) cited.push(key);
      const numbers = parts.map((key) => `[${cited.indexOf(key) + 1}]`).join('');
      cites[keys] = mode === 't'
        ? parts.map((key) => `${(bib[key] && bib[key].author) || key} [${cited.indexOf(key) + 1}]`).join(', ')
        : numbers;
    }
  }
  return { glue, cites, cited };
}

function bibliography(cited, bib) {
  const section = document.createElement('ol');
  section.className = 'mmir-references';
  section.setAttribute(MARK, 'footbibliography');
  for (const key of cited) {
    const item = document.createElement('li');
    item.textContent = (bib[key] && bib[key].text) || key;
    section.appendChild(item);
  }
  return section;
}

// One pass over the rendered markdown of a notebook: the roles' spans rewritten, each
// "Unknown Directive" box of footbibliography replaced by the reference list.
function rewrite(root, state, bib) {
  for (const span of root.querySelectorAll(`.jp-MarkdownCell .myst span:not([${MARK}])`)) {
    // jupyterlab-myst renders an unknown role as a bare <span>; KaTeX's spans carry classes
    // (and \text{nlist} inside math must stay as written)
    if (span.childElementCount !== 0 || span.attributes.length !== 0 || span.closest('.katex')) continue;
    const text = span.textContent;
    const value = text in state.glue ? state.glue[text] : text in state.cites ? state.cites[text] : null;
    if (value !== null) {
      span.setAttribute(MARK, text);
      span.textContent = value;
    }
  }
  for (const span of root.querySelectorAll(`.jp-MarkdownCell .myst span[${MARK}]`)) {
    const role = span.getAttribute(MARK);  // a rerun changed a glued value
    const value = role in state.glue ? state.glue[role] : state.cites[role];
    if (value !== undefined && span.textContent !== value) span.textContent = value;
  }
  for (const title of root.querySelectorAll('.jp-MarkdownCell .myst .myst-exercise-title')) {
    if (!/footbibliography\s*-\s*Unknown Directive/.test(title.textContent)) continue;
    let box = title;
    while (box.parentElement && !box.parentElement.classList.contains('myst')) box = box.parentElement;
    const heading = document.createElement('div');
    heading.setAttribute(MARK, 'footbibliography');
    heading.appendChild(bibliography(state.cited, bib));
    box.replaceWith(heading);
  }
}

const PREVIEW = 'A preview: run this cell to make the controls live.';

function markPreviews(root) {
  for (const figure of root.querySelectorAll('.jp-OutputArea figure.mmir-widget:not([data-mmir-preview])')) {
    figure.setAttribute('data-mmir-preview', '');
    for (const input of figure.querySelectorAll('input')) input.disabled = true;
    const note = document.createElement('p');
    note.className = 'mmir-widget-note';
    note.textContent = PREVIEW;
    figure.prepend(note);
  }
}

function watch(panel) {
  const model = panel.context.model;
  const root = panel.content.node;
  let state = null;
  let scheduled = false;
  const pass = async () => {
    scheduled = false;
    const bib = await loadReferences();
    if (state === null) state = readNotebook(model, bib);
    observer.disconnect();
    rewrite(root, state, bib);
    markPreviews(root);
    observer.observe(root, { childList: true, subtree: true, characterData: true });
  };
  const schedule = () => {
    if (!scheduled) {
      scheduled = true;
      requestAnimationFrame(pass);
    }
  };
  const observer = new MutationObserver(schedule);
  // contentChanged fires on every keystroke in a cell: re-read the notebook (its whole JSON,
  // outputs included) only once typing or a run has paused for READ_DELAY_MS
  let reread = null;
  model.contentChanged.connect(() => {
    clearTimeout(reread);
    reread = setTimeout(() => {
      state = null;
      schedule();
    }, READ_DELAY_MS);
  });
  panel.disposed.connect(() => observer.disconnect());
  schedule();
}

const plugin = {
  id: 'mmir-lab-prose:plugin',
  description: "The book's glued numbers, citations and reference lists in JupyterLab's notebooks.",
  autoStart: true,
  activate: (app) => {
    const seen = new WeakSet();
    const attach = (widget) => {
      const isNotebook = widget && widget.context && widget.content && widget.content.node
        && widget.content.node.classList.contains('jp-Notebook');
      if (!isNotebook || seen.has(widget)) return;
      seen.add(widget);
      widget.context.ready.then(() => watch(widget));
    };
    app.shell.currentChanged.connect((_, change) => attach(change.newValue));
    app.restored.then(() => {
      for (const widget of app.shell.widgets('main')) attach(widget);
    });
  },
};

module.exports = plugin;
