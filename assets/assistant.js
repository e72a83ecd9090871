// cashkeeper: the assistant page (/assistant, docs/assistant.md).
//
// Asking posts the question to POST /api/chat and reads its answer as a
// server-sent event stream through fetch (EventSource cannot POST):
//   conversation {id}                     the conversation the answer belongs to
//   delta {text}                          more of the answer's text
//   tool {name, arguments, summary}       a read tool ran: one activity line
//   preview {proposalId, tool, arguments, preview}
//                                         a proposed write: a card to confirm
//   done {messageId} | error {error}      the end
// Stop, and leaving the page, abort the request, which cancels it upstream.
// A card's Confirm calls confirmProposal {proposalId}, which books the
// proposal once (a second Confirm, here or in another tab, is refused);
// Discard calls discardProposal. A write the assistant proposed before
// proposals were stored has no proposalId: it can be looked at, not
// confirmed (it may have been booked already).
// The model's text is only ever set as text (textContent), never as HTML.
'use strict';

(function () {
  const root = document.querySelector('[data-assistant]');
  if (!root) return;
  const T = JSON.parse(root.dataset.texts || '{}');
  const log = root.querySelector('#chat-log');
  const form = root.querySelector('#chat-form');
  const input = root.querySelector('#chat-input');
  const send = form.querySelector('.chat-send');
  const stop = form.querySelector('.chat-stop');
  const formError = form.querySelector('.chat-error');
  const list = root.querySelector('.conv-list');
  const listEmpty = root.querySelector('.conv-empty');
  const pages = { daily_expense: '/daily-expenses', expense: '/expenses', income: '/incomes', transfer: '/transfers' };

  let conversationId = root.dataset.conversation || '';
  let controller = null;

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  // Keep the newest line in view while the person is at the end of the chat.
  function atEnd() {
    return window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 80;
  }
  function toEnd() {
    window.scrollTo(0, document.documentElement.scrollHeight);
  }
  function follow(wasAtEnd) {
    if (wasAtEnd) toEnd();
  }

  // app.js's call of a server action (it runs first: both are deferred).
  // A request that got no answer while the browser is offline says so:
  // nothing was sent.
  async function action(name, body) {
    const answer = await window.cashkeeper.action(name, body);
    if (answer.unreached && navigator.onLine === false) return { success: false, error: T.offline };
    return answer;
  }

  // A refusal's words without the field's name in front ("proposalId: …"
  // means nothing beside a card).
  function words(error) {
    return String(error || T.network).replace(/^[A-Za-z_][\w.]*: /, '');
  }

  function showError(message) {
    formError.textContent = message || T.network;
    formError.hidden = false;
  }

  function kindOf(tool) {
    const m = /^[a-z]+_(.+)$/.exec(tool || '');
    return m ? m[1] : '';
  }

  // ---- the conversation list -------------------------------------------

  function formatDay(stamp) {
    const d = new Date(stamp);
    if (isNaN(d)) return '';
    const de = document.documentElement.lang === 'de';
    return new Intl.DateTimeFormat(de ? 'de-DE' : 'en-GB', de
      ? { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: 'UTC' }
      : { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(d);
  }

  // The same markup as the page renders (src/web/pages/assistant.rs).
  function listItem(c) {
    const title = (c.title || '').trim() || T.untitled;
    const li = el('li', 'conv');
    const a = el('a', 'conv-link');
    a.href = '/assistant?c=' + encodeURIComponent(c.id);
    if (c.id === conversationId) a.setAttribute('aria-current', 'page');
    a.appendChild(el('span', 'conv-title', title));
    const day = formatDay(c.updatedAt);
    if (day) a.appendChild(el('small', 'muted conv-date', day));
    const del = el('button', 'link danger conv-delete', T.delete);
    del.type = 'button';
    del.dataset.delete = c.id;
    del.setAttribute('aria-label', T.deleteNamed + ': ' + title);
    li.append(a, del);
    return li;
  }

  async function refreshList() {
    const body = await action('listConversations', {});
    if (!body.success || !Array.isArray(body.data)) return;
    list.replaceChildren(...body.data.map(listItem));
    listEmpty.hidden = body.data.length > 0;
  }

  list.addEventListener('click', async function (ev) {
    const button = ev.target.closest('button[data-delete]');
    if (!button) return;
    if (!window.confirm(T.deleteConfirm)) return;
    button.disabled = true;
    const id = button.dataset.delete;
    const body = await action('deleteConversation', { id: id });
    button.disabled = false;
    if (!body.success) { showError(body.error); return; }
    if (id === conversationId) { window.location.assign('/assistant'); return; }
    button.closest('li').remove();
    listEmpty.hidden = list.children.length > 0;
  });

  // ---- proposed entries --------------------------------------------------

  // A card for a proposed write: what it would save, Confirm and Discard.
  function previewCard(tool, args, preview, proposalId) {
    preview = preview || {};
    const kind = kindOf(tool);
    const card = el('article', 'proposal' + (preview.valid ? '' : ' invalid'));
    const head = el('h3', null, T.proposal);
    if (T.kinds[kind]) { head.append(' '); head.appendChild(el('span', 'badge', T.kinds[kind])); }
    card.appendChild(head);
    if (preview.summary) card.appendChild(el('p', 'proposal-summary', preview.summary));
    const errors = Array.isArray(preview.errors) ? preview.errors : [];
    if (!preview.valid || errors.length) {
      card.appendChild(el('p', 'proposal-invalid', T.invalid));
      const ul = el('ul', 'proposal-errors');
      for (const e of errors) ul.appendChild(el('li', null, e));
      card.appendChild(ul);
    }
    const status = el('p', 'proposal-status');
    status.setAttribute('role', 'status');
    status.hidden = true;
    const buttons = el('div', 'buttons');
    let confirm = null;
    if (preview.valid && proposalId) {
      confirm = el('button', 'primary confirm', T.confirm);
      confirm.type = 'button';
      buttons.appendChild(confirm);
    }
    const discard = el('button', 'discard', T.discard);
    discard.type = 'button';
    buttons.appendChild(discard);
    card.append(status, buttons);

    // Where the saved record is listed: its page (a one-time expense's
    // month), after the status.
    function linkSaved(saved) {
      const page = pages[kind];
      if (!page) return;
      const day = saved && typeof saved.date === 'string' ? saved.date
        : (args && typeof args.date === 'string' ? args.date : '');
      const a = el('a', null, T.open + ': ' + (T.pages[kind] || page));
      a.href = kind === 'daily_expense' && /^\d{4}-\d{2}/.test(day) ? page + '?month=' + day.slice(0, 7) : page;
      status.append(' ', a);
    }

    // Saved or discarded in another tab (or before): said in words, the
    // saved record linked, and the buttons retired.
    function settledElsewhere(body) {
      card.classList.add(body.state === 'saved' ? 'saved' : 'discarded');
      buttons.remove();
      status.classList.remove('error');
      status.replaceChildren(el('strong', null, words(body.error)));
      if (body.state === 'saved') linkSaved(null);
      status.hidden = false;
      input.focus();
    }

    discard.addEventListener('click', async function () {
      if (!proposalId) {
        card.remove();
        input.focus();
        return;
      }
      discard.disabled = true;
      if (confirm) confirm.disabled = true;
      const body = await action('discardProposal', { proposalId: proposalId });
      if (!body.success && body.state) { settledElsewhere(body); return; }
      if (!body.success) {
        discard.disabled = false;
        if (confirm) confirm.disabled = false;
        status.textContent = words(body.error);
        status.classList.add('error');
        status.hidden = false;
        return;
      }
      card.classList.add('discarded');
      buttons.remove();
      status.classList.remove('error');
      status.replaceChildren(el('strong', null, T.discarded));
      status.hidden = false;
      input.focus();
    });
    if (confirm) {
      confirm.addEventListener('click', async function () {
        confirm.disabled = true;
        discard.disabled = true;
        status.hidden = true;
        status.classList.remove('error');
        const body = await action('confirmProposal', { proposalId: proposalId });
        if (!body.success && body.state) { settledElsewhere(body); return; }
        if (!body.success) {
          confirm.disabled = false;
          discard.disabled = false;
          status.textContent = words(body.error);
          status.classList.add('error');
          status.hidden = false;
          return;
        }
        card.classList.add('saved');
        buttons.remove();
        status.replaceChildren(el('strong', null, T.saved));
        const data = body.data || {};
        linkSaved(data.record || data);
        status.hidden = false;
      });
    }
    return card;
  }

  // A stored proposal ("Show the proposal"): ask previewTool what it would
  // do today, and show its card (confirmed through its proposal id).
  log.addEventListener('click', async function (ev) {
    const button = ev.target.closest('button.review');
    if (!button) return;
    let args = {};
    try { args = JSON.parse(button.dataset.arguments || '{}') || {}; } catch (_) { args = {}; }
    button.disabled = true;
    const body = await action('previewTool', { tool: button.dataset.tool, arguments: args });
    button.disabled = false;
    if (!body.success) { showError(body.error); return; }
    const card = previewCard(button.dataset.tool, args, body.data, button.dataset.proposal || '');
    button.closest('.msg-tool').after(card);
    button.remove();
    const first = card.querySelector('button');
    if (first) first.focus();
  });

  // ---- asking -------------------------------------------------------------

  function intro() {
    const p = log.querySelector('.chat-intro');
    if (p) p.remove();
  }

  function userMessage(text) {
    const div = el('div', 'msg msg-user');
    div.appendChild(el('span', 'sr-only', T.you + ': '));
    div.appendChild(el('p', 'msg-text', text));
    log.appendChild(div);
  }

  // One answer: text segments, activity lines and cards, in the order
  // they come.
  function Turn() {
    this.div = el('div', 'msg msg-assistant');
    this.div.appendChild(el('span', 'sr-only', T.assistant + ': '));
    this.wait = el('p', 'msg-wait muted', T.thinking);
    this.div.appendChild(this.wait);
    this.text = null;
    log.appendChild(this.div);
  }
  Turn.prototype.add = function (node) {
    if (this.wait) { this.wait.remove(); this.wait = null; }
    this.text = null;
    this.div.appendChild(node);
  };
  Turn.prototype.delta = function (text) {
    if (!text) return;
    if (!this.text) {
      const p = el('p', 'msg-text');
      this.add(p);
      this.text = document.createTextNode('');
      p.appendChild(this.text);
    }
    this.text.appendData(text);
  };
  Turn.prototype.note = function (text, className) {
    const p = el('p', className, text);
    this.add(p);
    return p;
  };
  Turn.prototype.end = function () {
    if (this.wait) { this.wait.remove(); this.wait = null; }
    if (this.div.children.length === 1) this.div.remove();
  };

  // Reads a server-sent event stream; `onEvent(name, data)` for each event.
  async function readEvents(res, onEvent) {
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    function dispatch(block) {
      let name = 'message';
      const data = [];
      for (const line of block.split(/\r\n|\r|\n/)) {
        if (!line || line[0] === ':') continue;
        const i = line.indexOf(':');
        const field = i < 0 ? line : line.slice(0, i);
        let value = i < 0 ? '' : line.slice(i + 1);
        if (value[0] === ' ') value = value.slice(1);
        if (field === 'event') name = value;
        else if (field === 'data') data.push(value);
      }
      if (!data.length) return;
      let parsed;
      try { parsed = JSON.parse(data.join('\n')); } catch (_) { parsed = {}; }
      onEvent(name, parsed);
    }
    for (;;) {
      const { value, done } = await reader.read();
      buffer += decoder.decode(value || new Uint8Array(), { stream: !done });
      let m;
      while ((m = /\r\n\r\n|\n\n|\r\r/.exec(buffer))) {
        const block = buffer.slice(0, m.index);
        buffer = buffer.slice(m.index + m[0].length);
        dispatch(block);
      }
      if (done) { if (buffer.trim()) dispatch(buffer); return; }
    }
  }

  function streaming(on) {
    const focused = document.activeElement;
    send.hidden = on;
    stop.hidden = !on;
    if (on && focused === send) stop.focus();
    if (!on && (focused === stop || focused === document.body)) input.focus();
    // Screen readers hear the answer once it is complete, not every piece.
    if (on) log.setAttribute('aria-busy', 'true'); else log.removeAttribute('aria-busy');
  }

  function opened(id) {
    if (!id || id === conversationId) return;
    conversationId = id;
    root.dataset.conversation = id;
    history.replaceState(null, '', '/assistant?c=' + encodeURIComponent(id));
  }

  async function ask(text) {
    formError.hidden = true;
    intro();
    userMessage(text);
    const turn = new Turn();
    toEnd();
    controller = new AbortController();
    streaming(true);
    const body = { messages: [{ role: 'user', content: text }] };
    if (conversationId) body.conversationId = conversationId;
    // A conversation this question starts is kept only once answered (or
    // once it proposed something): the server removes it otherwise, and
    // asking again starts a new one.
    const fresh = !conversationId;
    let finished = false;
    let kept = false;
    try {
      const res = await fetch('/api/chat', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
        credentials: 'same-origin',
        body: JSON.stringify(body),
        signal: controller.signal,
      });
      if (res.status === 401) { window.location.assign('/login'); return; }
      const type = res.headers.get('content-type') || '';
      if (!res.ok || type.indexOf('application/json') === 0) {
        let reply = {};
        try { reply = await res.json(); } catch (_) { reply = {}; }
        if (!res.ok) {
          let message = reply.error || T.network;
          const wait = res.headers.get('retry-after');
          if (res.status === 429 && wait) message = T.tooMany.replace('{n}', wait);
          turn.note(message, 'msg-error');
          finished = true;
          return;
        }
        // A whole answer instead of a stream.
        kept = true;
        opened(reply.conversationId);
        turn.delta(reply.message && reply.message.content);
        for (const p of reply.previews || []) {
          turn.add(previewCard(p.tool, p.arguments, p.preview || p, p.proposalId));
        }
        finished = true;
        return;
      }
      await readEvents(res, function (name, data) {
        const wasAtEnd = atEnd();
        switch (name) {
          case 'conversation': opened(data.id); break;
          case 'delta': turn.delta(data.text); break;
          case 'tool': turn.note(data.summary || data.name, 'msg-tool'); break;
          case 'preview': kept = true; turn.add(previewCard(data.tool, data.arguments, data.preview, data.proposalId)); break;
          case 'done': finished = true; kept = true; break;
          case 'error': turn.note(data.error || T.network, 'msg-error'); finished = true; break;
        }
        follow(wasAtEnd);
      });
      if (!finished) turn.note(T.connectionLost, 'msg-error');
    } catch (e) {
      if (e && e.name === 'AbortError') turn.note(T.stopped, 'msg-stopped muted');
      else turn.note(T.connectionLost, 'msg-error');
    } finally {
      controller = null;
      turn.end();
      streaming(false);
      if (fresh && !kept && conversationId) {
        conversationId = '';
        delete root.dataset.conversation;
        history.replaceState(null, '', '/assistant');
      }
      if (conversationId) refreshList().catch(function () {});
    }
  }

  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    const text = input.value.trim();
    if (!text || controller) return;
    input.value = '';
    ask(text);
  });

  // Enter sends, Shift+Enter is a new line (and typing with an input
  // method is left alone).
  input.addEventListener('keydown', function (ev) {
    if (ev.key !== 'Enter' || ev.shiftKey || ev.isComposing || ev.keyCode === 229) return;
    ev.preventDefault();
    if (typeof form.requestSubmit === 'function') form.requestSubmit(); else send.click();
  });

  stop.addEventListener('click', function () {
    if (controller) controller.abort();
    input.focus();
  });

  // An opened conversation shows its end, where the question box is.
  if (log.querySelector('.msg')) toEnd();

  // Leaving the page cancels the answer upstream too.
  window.addEventListener('pagehide', function () {
    if (controller) controller.abort();
  });
})();
