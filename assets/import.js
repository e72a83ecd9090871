// cashkeeper: the import page (/import, docs/import.md).
//
// The upload goes to POST /api/imports through XMLHttpRequest, whose upload
// progress fetch cannot report; the batch it answers is reconciled at once
// (reconcileImport, with ai when the box is ticked), and the page opens it
// (/import?batch=<id>), which the server renders: counts, format, rows.
// A layout the server does not know is refused with the file's columns;
// the form then asks which column holds what and sends that as `mapping`.
// Here: each row's Import / Skip and all conflicts at once
// (decideImportConflict, whose reply's batch updates the badge and the
// open decisions in the confirm bar under the rows), AI suggestions,
// confirm (from above the rows or from the bar) with its progress, cancel
// and undo. A message that must outlive the reload that follows an action
// waits in sessionStorage until the next page shows it; one about the AI
// suggestions asked for on the page is shown next to their button.
'use strict';

(function () {
  const root = document.querySelector('[data-import]');
  if (!root) return;
  const T = JSON.parse(root.dataset.texts || '{}');
  const batchId = root.dataset.batch || '';
  const FLASH = 'cashkeeper.import.flash';
  const lang = document.documentElement.lang || 'en';

  function count(n) {
    return new Intl.NumberFormat(lang === 'de' ? 'de-DE' : 'en-GB').format(n);
  }

  // app.js's call of a server action (it runs first: both are deferred);
  // a failed request says the page's network message.
  const action = window.cashkeeper.action;

  // ---- messages ----------------------------------------------------------

  // `at`: 'ai' to show it next to the AI suggestions' button.
  function flash(text, kind, at) {
    try { sessionStorage.setItem(FLASH, JSON.stringify({ text: text, kind: kind || 'ok', at: at || '' })); } catch (_) { /* private mode */ }
  }

  (function showFlash() {
    let stored = null;
    try {
      stored = JSON.parse(sessionStorage.getItem(FLASH) || 'null');
      sessionStorage.removeItem(FLASH);
    } catch (_) { /* nothing stored */ }
    if (!stored || !stored.text) return;
    // Why the AI suggestions asked for failed: next to their button, focused.
    const aiError = root.querySelector('#import-ai-error');
    if (stored.at === 'ai' && stored.kind === 'error' && aiError) {
      aiError.textContent = stored.text;
      aiError.hidden = false;
      aiError.focus();
      return;
    }
    const box = root.querySelector('#import-flash');
    if (!box) return;
    box.textContent = stored.text;
    box.classList.toggle('error', stored.kind === 'error');
    box.hidden = false;
  })();

  // The error slot next to what was clicked: the nearest one above it.
  function errorSlot(near) {
    const scope = (near && near.closest('.import-actions, .import-confirm-bar, .import-history, .import-batch, .import-preview, form')) || root;
    return scope.querySelector('.import-error, .form-error') || root.querySelector('.import-error');
  }

  function showError(near, message, extra) {
    const slot = errorSlot(near);
    if (!slot) { window.alert(message); return; }
    slot.textContent = message || 'error';
    if (extra) { slot.append(' ', extra); }
    slot.hidden = false;
  }

  function clearError(near) {
    const slot = errorSlot(near);
    if (slot) { slot.textContent = ''; slot.hidden = true; }
  }

  function say(text) {
    const status = root.querySelector('.import-status');
    if (!status) return;
    status.textContent = text;
    status.hidden = !text;
  }

  function progressOf(scope) {
    const box = scope.querySelector('.import-progress');
    return {
      show: function (text, fraction) {
        if (!box) return;
        const bar = box.querySelector('progress');
        if (fraction === undefined || fraction === null) bar.removeAttribute('value');
        else bar.value = Math.round(fraction * 100);
        box.querySelector('.progress-text').textContent = text;
        box.hidden = false;
      },
      hide: function () { if (box) box.hidden = true; },
    };
  }

  function busy(scope, on) {
    for (const b of scope.querySelectorAll('button')) b.disabled = on;
    if (on) scope.setAttribute('aria-busy', 'true'); else scope.removeAttribute('aria-busy');
  }

  // ---- upload ------------------------------------------------------------

  const form = root.querySelector('#import-form');
  if (form) {
    const submit = form.querySelector('button[type=submit]');
    submit.disabled = false;
    const fileInput = form.querySelector('input[type=file]');
    const fileError = form.querySelector('[data-error-for=file]');
    const accountError = form.querySelector('[data-error-for=accountId]');
    const general = form.querySelector('.form-error');
    const progress = progressOf(form);

    const clear = function () {
      for (const slot of form.querySelectorAll('[data-error-for]')) slot.textContent = '';
      for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
      general.textContent = '';
      general.hidden = true;
    };
    const mapping = form.querySelector('.import-mapping');
    const pick = form.querySelector('.import-pick-account');
    const columnSelects = mapping ? Array.from(mapping.querySelectorAll('select[data-map]'))
      .filter(function (s) { return !['dateFormat', 'decimalSeparator'].includes(s.dataset.map); }) : [];
    // What a column's name suggests it holds.
    const guesses = {
      date: /^(buchungs?tag|buchungsdatum|datum|date|booking date|transaction date)$/i,
      amount: /^(betrag|umsatz|amount|value|betrag \(eur\)|amount \(eur\))$/i,
      payee: /(empf|zahlungspflichtig|auftraggeber|beg(ue|ü)nstigt|payee|counterparty|name)/i,
      memo: /(verwendungszweck|zweck|memo|description|reference|buchungstext|text)/i,
    };

    // The server could not read the layout: offer the file's columns.
    const showMapping = function (columns) {
      for (const select of columnSelects) {
        const none = select.options[0];
        select.replaceChildren(none);
        columns.forEach(function (name, i) {
          const option = document.createElement('option');
          option.value = String(i);
          option.textContent = name || String(i + 1);
          select.append(option);
        });
        const guess = guesses[select.dataset.map];
        const hit = guess ? columns.findIndex(function (name) { return guess.test(name.trim()); }) : -1;
        select.value = hit >= 0 ? String(hit) : '';
      }
      mapping.hidden = false;
    };
    const chosenMapping = function () {
      if (!mapping || mapping.hidden) return null;
      const out = {};
      for (const select of mapping.querySelectorAll('select[data-map]')) {
        if (select.value === '') continue;
        out[select.dataset.map] = columnSelects.includes(select) ? Number(select.value) : select.value;
      }
      return out;
    };

    // A refusal naming the file or the account goes next to it, others above the button.
    // `offered` is what the refusal brings besides its words: the file's
    // `columns` (a layout not recognised) or `accounts` (several in one file).
    const refuse = function (message, offered) {
      progress.hide();
      busy(form, false);
      const m = /^([A-Za-z_][\w.]*): ([\s\S]*)$/.exec(message || '');
      const field = m && m[1];
      const columns = offered && Array.isArray(offered.columns) ? offered.columns : null;
      const found = m && field === 'mapping' && columns ? columns : null;
      const slot = field && field.indexOf('mapping.') === 0 && mapping && !mapping.hidden
        ? form.querySelector('[data-error-for="' + field + '"]') : null;
      if (found && mapping) {
        showMapping(found);
        general.textContent = T.mappingNeeded;
        general.hidden = false;
        const first = mapping.querySelector('select');
        if (first) first.focus();
      } else if (slot) {
        slot.textContent = m[2];
        const select = form.querySelector('[data-map="' + field.slice(8) + '"]');
        if (select) { select.setAttribute('aria-invalid', 'true'); select.focus(); }
      } else if (field === 'file' || field === 'csv' || field === 'csvBase64') {
        fileError.textContent = m[2];
        fileInput.setAttribute('aria-invalid', 'true');
        fileInput.focus();
      } else if (field === 'accountIban' && pick) {
        // The refusal brings the file's accounts: offer them.
        const listed = offered && Array.isArray(offered.accounts) ? offered.accounts : [];
        const select = pick.querySelector('select');
        const before = select.value;
        select.replaceChildren();
        for (const id of listed) {
          const option = document.createElement('option');
          option.value = id;
          option.textContent = id;
          select.append(option);
        }
        if (before) select.value = before;
        pick.hidden = false;
        pick.querySelector('[data-error-for]').textContent = m[2];
        select.setAttribute('aria-invalid', 'true');
        select.focus();
      } else if (field === 'accountId' && accountError) {
        accountError.textContent = m[2];
        form.elements.namedItem('accountId').setAttribute('aria-invalid', 'true');
      } else {
        general.textContent = message || 'error';
        general.hidden = false;
      }
    };

    // Another file may well be one the server knows.
    fileInput.addEventListener('change', function () {
      clear();
      // Choosing other columns for a file keeps them open for it.
      if (mapping && !form.elements.namedItem('replaces')) mapping.hidden = true;
      if (pick) { pick.hidden = true; pick.querySelector('select').replaceChildren(); }
    });

    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      clear();
      const file = fileInput.files && fileInput.files[0];
      if (!file) { refuse('file: ' + T.noFile); return; }
      // The server takes at most 64 MiB: say so before sending more.
      if (file.size > 64 * 1024 * 1024) { refuse('file: ' + T.tooLarge); return; }
      const ai = form.elements.namedItem('ai');
      const wantAi = !!(ai && ai.checked);
      const data = new FormData();
      data.append('accountId', form.elements.namedItem('accountId').value);
      const chosen = chosenMapping();
      if (chosen) data.append('mapping', JSON.stringify(chosen));
      if (pick && !pick.hidden && pick.querySelector('select').value) {
        data.append('accountIban', pick.querySelector('select').value);
      }
      data.append('file', file, file.name);
      busy(form, true);
      progress.show(T.uploading.replace('{p}', '0'), 0);

      const xhr = new XMLHttpRequest();
      xhr.open('POST', '/api/imports');
      xhr.withCredentials = true;
      xhr.upload.addEventListener('progress', function (e) {
        if (!e.lengthComputable) return;
        const p = e.loaded / e.total;
        progress.show(T.uploading.replace('{p}', String(Math.floor(p * 100))), p);
      });
      // Sent: the server reads and stages the file.
      xhr.upload.addEventListener('load', function () { progress.show(T.reading); });
      xhr.addEventListener('error', function () { refuse(T.network); });
      xhr.addEventListener('load', async function () {
        if (xhr.status === 401) { window.location.assign('/login'); return; }
        let body = null;
        try { body = JSON.parse(xhr.responseText); } catch (_) { /* not JSON */ }
        if (xhr.status !== 201 || !body || !body.id) {
          refuse((body && body.error) || (xhr.status === 413 ? 'file: ' + T.tooLarge : T.network), body);
          return;
        }
        progress.show(wantAi ? T.askingAi : T.reconciling);
        await reconcile(body.id, wantAi);
        // Read again with other columns: the new import replaces the old.
        const replaces = form.elements.namedItem('replaces');
        if (replaces && replaces.value) await action('cancelImport', { id: replaces.value });
        window.location.assign('/import?batch=' + encodeURIComponent(body.id));
      });
      xhr.send(data);
    });
  }

  // Reconciles a batch; what came of it waits for the page that shows it
  // (`at`: where on it, see flash).
  async function reconcile(id, ai, at) {
    const r = await action('reconcileImport', ai ? { id: id, ai: true } : { id: id });
    if (!r.success) { flash(r.error, 'error', at); return false; }
    if (r.data && r.data.ai) {
      const s = r.data.ai;
      if (s.error) flash(s.error, 'error', at);
      else flash(T.aiDone.replace('{c}', count(s.categories || 0)).replace('{d}', count(s.duplicates || 0)));
    }
    return true;
  }

  // ---- an opened batch ---------------------------------------------------

  // What the reply to a decision says of the batch: the badge, and the
  // open decisions in the bar under the rows.
  function showOpen(batch) {
    if (!batch || batch.status !== 'reconciled' || typeof batch.undecided !== 'number') return;
    const open = batch.undecided;
    const label = open > 0 ? T.batchUndecided : T.batchReconciled;
    const badges = root.querySelectorAll('.batch-head .batch-status, tr[data-batch="' + CSS.escape(batchId) + '"] .batch-status');
    for (const badge of badges) badge.textContent = label;
    const bar = root.querySelector('[data-open-decisions]');
    if (bar) bar.textContent = open > 0 ? T.openDecisions.replace('{n}', count(open)) : T.batchReconciled;
  }

  function markDecided(row, decision) {
    for (const b of row.querySelectorAll('button[data-decide]')) {
      b.setAttribute('aria-pressed', b.dataset.decide === decision ? 'true' : 'false');
    }
    const note = row.querySelector('.decision-note');
    if (note) note.remove();
    row.classList.remove('undecided');
  }

  // A row's category (setImportRowCategory); on a refusal the select
  // goes back to what the row has.
  async function setCategory(select, categoryId) {
    const row = select.closest('tr[data-row]');
    const before = select.dataset.saved !== undefined ? select.dataset.saved : select.defaultValue;
    clearError(root.querySelector('.import-actions') || select);
    select.disabled = true;
    const r = await action('setImportRowCategory', { id: batchId, rowId: row.dataset.row, categoryId: categoryId || null });
    select.disabled = false;
    if (!r.success) {
      select.value = before;
      showError(root.querySelector('.import-actions') || select, r.error);
      return;
    }
    select.value = categoryId;
    select.dataset.saved = categoryId;
    const hint = row.querySelector('.suggestion');
    if (hint) hint.remove();
    say(T.categorySet);
  }

  for (const select of root.querySelectorAll('select[data-row-category]')) {
    select.dataset.saved = select.value;
  }

  root.addEventListener('change', function (ev) {
    const select = ev.target.closest('select[data-row-category]');
    if (select) setCategory(select, select.value);
  });

  root.addEventListener('click', async function (ev) {
    const button = ev.target.closest('button');
    if (!button || !root.contains(button)) return;

    // The AI's suggestion for one row.
    if (button.dataset.useCategory) {
      const select = button.closest('tr[data-row]').querySelector('select[data-row-category]');
      if (select) await setCategory(select, button.dataset.useCategory);
      return;
    }

    // Every suggestion at once.
    if (button.dataset.acceptSuggestions !== undefined) {
      const scope = button.closest('.import-actions') || root;
      clearError(button);
      busy(scope, true);
      const r = await action('acceptImportSuggestions', { id: batchId });
      if (!r.success) { busy(scope, false); showError(button, r.error); return; }
      flash(T.accepted.replace('{n}', count(r.data.accepted)));
      window.location.reload();
      return;
    }

    // One row: Import or Skip.
    if (button.dataset.decide) {
      const row = button.closest('tr[data-row]');
      const group = button.closest('.decide');
      clearError(root.querySelector('.import-actions') || button);
      busy(group, true);
      const r = await action('decideImportConflict', { id: batchId, rowId: row.dataset.row, decision: button.dataset.decide });
      busy(group, false);
      if (!r.success) { showError(root.querySelector('.import-actions') || button, r.error); return; }
      markDecided(row, button.dataset.decide);
      showOpen(r.data && r.data.batch);
      return;
    }

    const actions = button.closest('.import-actions, .import-confirm-bar');

    // Every conflict at once.
    if (button.dataset.decideAll) {
      const decision = button.dataset.decideAll;
      clearError(button);
      busy(actions, true);
      const r = await action('decideImportConflict', { id: batchId, all: 'conflict', decision: decision });
      busy(actions, false);
      if (!r.success) { showError(button, r.error); return; }
      for (const row of root.querySelectorAll('tr[data-row][data-status=conflict]')) markDecided(row, decision);
      showOpen(r.data.batch);
      say(T.decidedAll.replace('{n}', count(r.data.decided)));
      return;
    }

    if (button.dataset.reconcile !== undefined || button.dataset.ai !== undefined) {
      const ai = button.dataset.ai !== undefined;
      clearError(button);
      const aiError = root.querySelector('#import-ai-error');
      if (aiError) { aiError.textContent = ''; aiError.hidden = true; }
      const scope = actions || root;
      busy(scope, true);
      progressOf(scope).show(ai ? T.askingAi : T.reconciling);
      await reconcile(batchId, ai, ai ? 'ai' : '');
      // The page opens where it is focused (by a message), not where it was.
      if (ai && 'scrollRestoration' in history) history.scrollRestoration = 'manual';
      window.location.reload();
      return;
    }

    if (button.dataset.confirmImport !== undefined) {
      clearError(button);
      // Both confirms (above the rows and in the bar) wait.
      const all = root.querySelectorAll('.import-actions, .import-confirm-bar');
      for (const scope of all) busy(scope, true);
      const progress = progressOf(actions);
      progress.show(button.dataset.busy);
      const setBalance = root.querySelector('[data-set-balance]');
      const r = await action('confirmImport', { id: batchId, setBalance: !!(setBalance && setBalance.checked) });
      if (r.success) {
        if (r.data && r.data.balanceSet) flash(T.balanceSet);
        window.location.assign('/import?batch=' + encodeURIComponent(batchId));
        return;
      }
      progress.hide();
      for (const scope of all) busy(scope, false);
      // Refused while conflicts wait for a decision (the page offers to
      // decide them all): offer to show them, in whatever language.
      let extra = null;
      if (root.querySelector('.decide-all')) {
        extra = document.createElement('a');
        extra.href = '/import?batch=' + encodeURIComponent(batchId) + '&status=conflict';
        extra.textContent = T.showConflicts;
      }
      showError(button, r.error, extra);
      return;
    }

    if (button.dataset.cancelImport !== undefined) {
      if (!window.confirm(T.cancelConfirm)) return;
      clearError(button);
      busy(actions, true);
      const r = await action('cancelImport', { id: batchId });
      if (!r.success) { busy(actions, false); showError(button, r.error); return; }
      flash(T.cancelled);
      window.location.assign('/import');
      return;
    }

    if (button.dataset.undo) {
      if (!window.confirm(T.undoConfirm)) return;
      clearError(button);
      button.disabled = true;
      const r = await action('undoImport', { id: button.dataset.undo });
      button.disabled = false;
      if (!r.success) { showError(button, r.error); return; }
      // An opened batch says it is undone in its own notice after the
      // reload: the flash would say it a second time.
      if (!button.closest('.import-batch')) flash(T.undone.replace('{n}', count(r.data.removed)));
      window.location.reload();
    }
  });
})();
