#!/usr/bin/python3
"""Drives the desktop app as a screen reader does: through AT-SPI (python3-pyatspi).

desktop-a11y.test.mjs starts it inside the test's D-Bus session and sends one JSON command a line
on stdin; each answer is one JSON line on stdout ({"ok": true, ...} or {"ok": false, "error"}).
Every command waits on a condition of the accessibility tree (polled), never on a fixed sleep.

  {"cmd": "walk", "window": NAME_REGEX}
      the window's interactive controls without an accessible name or description
  {"cmd": "press", "window": NAME_REGEX, "role": ROLE, "name": NAME_REGEX, "timeout": s}
      waits until that control exists and is enabled, then does its Press/Click action
  {"cmd": "gone", "window": NAME_REGEX}
      waits until no window matches
  {"cmd": "text", "window": NAME_REGEX, "contains": REGEX, "timeout": s}
      waits until a label of that window says REGEX (what a screen reader reads out); returns
      the window's label texts
  {"cmd": "find", "window": NAME_REGEX, "role": ROLE, "name": NAME_REGEX, "timeout": s}
      waits until that node (any role, e.g. a label) is showing; answers its name and description
  {"cmd": "names", "window": NAME_REGEX, "role": ROLE, "contains": REGEX, "timeout": s}
      waits until a node of that role is named REGEX (e.g. a list's items); returns every name of
      that role, in tree order
  {"cmd": "active", "window": NAME_REGEX, "timeout": s}
      waits until that window is the active one (the one that has the keyboard); returns the
      names of the windows that are active then
  {"cmd": "choose", "window": NAME_REGEX, "list": NAME_REGEX, "details": NAME_REGEX,
   "contains": REGEX, "timeout": s}
      selects, one after the other, the items of the list named "list" (its Selection interface,
      as arrow keys would) until the text control named "details" shows REGEX; returns that text
"""
import json
import re
import sys
import time

import pyatspi

# Roles a person operates: each needs a name (and a description) or it is invisible to a blind
# user. Enabled or not: a disabled button is still read out.
INTERACTIVE = {
    'push button', 'toggle button', 'check box', 'radio button', 'combo box', 'text',
    'password text', 'entry', 'spin button', 'table', 'tree table', 'tree', 'list', 'list box',
    'page tab', 'page tab list', 'menu item', 'check menu item', 'radio menu item', 'menu',
    'slider', 'dial', 'link', 'tool bar',
}


# Qt 6.4's menu items expose only a name (QAccessibleMenuItem::text has no description), so
# their descriptions are not required; their names are.
NO_DESCRIPTION = {'menu item', 'check menu item', 'radio menu item', 'menu'}


def windows():
    desktop = pyatspi.Registry.getDesktop(0)
    for i in range(desktop.childCount):
        app = desktop.getChildAtIndex(i)
        if app is None:
            continue
        try:
            count = app.childCount
        except Exception:  # an application that went away while we looked
            continue
        for j in range(count):
            w = app.getChildAtIndex(j)
            if w is not None:
                yield w


def find_window(pattern):
    rx = re.compile(pattern)
    for w in windows():
        try:
            if rx.search(w.name or ''):
                return w
        except Exception:
            continue
    return None


def wait_for(what, probe, timeout):
    deadline = time.monotonic() + timeout
    while True:
        found = probe()
        if found:
            return found
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.05)


def descendants(node, depth=0):
    if depth > 60:
        return
    try:
        count = node.childCount
    except Exception:
        return
    for i in range(count):
        try:
            child = node.getChildAtIndex(i)
        except Exception:
            continue
        if child is None:
            continue
        yield child
        # Table cells and headers are the table's content, named by their text: the table
        # itself must be named; its rows are walked only as far as they hold controls.
        yield from descendants(child, depth + 1)


def label(node):
    try:
        return {'role': node.getRoleName(), 'name': node.name or '',
                'description': node.description or '',
                'enabled': node.getState().contains(pyatspi.STATE_ENABLED)}
    except Exception as e:  # noqa: BLE001 - a control that vanished mid-walk
        return {'role': '?', 'name': '', 'description': '', 'error': str(e)}


def walk(window_rx, timeout):
    w = wait_for(f'no window named {window_rx}', lambda: find_window(window_rx), timeout)
    controls, unnamed, undescribed = [], [], []
    for node in descendants(w):
        info = label(node)
        if info['role'] not in INTERACTIVE:
            continue
        controls.append(info)
        if not info['name'].strip():
            unnamed.append(info)
        if not info['description'].strip() and info['role'] not in NO_DESCRIPTION:
            undescribed.append(info)
    return {'window': w.name, 'role': w.getRoleName(), 'controls': controls,
            'unnamed': unnamed, 'undescribed': undescribed}


def press(window_rx, role, name_rx, timeout):
    rx = re.compile(name_rx)

    def probe():
        w = find_window(window_rx)
        if w is None:
            return None
        for node in descendants(w):
            info = label(node)
            if info['role'] == role and rx.search(info['name']) and info['enabled']:
                return node
        return None

    node = wait_for(f'no enabled {role} {name_rx} in {window_rx}', probe, timeout)
    action = node.queryAction()
    names = [action.getName(i) for i in range(action.nActions)]
    for wanted in ('Press', 'press', 'click', 'Click', 'Toggle', 'toggle'):
        if wanted in names:
            action.doAction(names.index(wanted))
            return {'pressed': node.name, 'action': wanted}
    raise RuntimeError(f'{role} {node.name} has no press action (only {names})')


def label_texts(w):
    texts = []
    for node in descendants(w):
        try:
            if node.getRoleName() in ('label', 'static', 'text'):
                texts.append(node.name or node.queryText().getText(0, -1))
        except Exception:  # noqa: BLE001 - a node that vanished, or one without text
            continue
    return texts


def text(window_rx, contains_rx, timeout):
    rx = re.compile(contains_rx)
    found = {}

    def probe():
        w = find_window(window_rx)
        if w is None:
            return None
        found['texts'] = label_texts(w)
        return any(rx.search(t or '') for t in found['texts'])

    try:
        wait_for(f'no label matching {contains_rx} in {window_rx}', probe, timeout)
    except TimeoutError as e:
        raise TimeoutError(f'{e}; its labels: {found.get("texts")}') from None
    return {'texts': found['texts']}


def find(window_rx, role, name_rx, timeout):
    rx = re.compile(name_rx)

    def probe():
        w = find_window(window_rx)
        if w is None:
            return None
        for node in descendants(w):
            info = label(node)
            if info['role'] == role and rx.search(info['name']) and \
                    node.getState().contains(pyatspi.STATE_SHOWING):
                return info
        return None

    return wait_for(f'no showing {role} {name_rx} in {window_rx}', probe, timeout)


def names(window_rx, role, contains_rx, timeout):
    rx = re.compile(contains_rx)
    found = {}

    def probe():
        w = find_window(window_rx)
        if w is None:
            return None
        found['names'] = [label(n)['name'] for n in descendants(w) if label(n)['role'] == role]
        return any(rx.search(n) for n in found['names'])

    try:
        wait_for(f'no {role} named {contains_rx} in {window_rx}', probe, timeout)
    except TimeoutError as e:
        raise TimeoutError(f'{e}; its {role} names: {found.get("names")}') from None
    return {'names': found['names']}


def active_windows():
    out = []
    for w in windows():
        try:
            if w.getState().contains(pyatspi.STATE_ACTIVE):
                out.append(w.name or '')
        except Exception:  # noqa: BLE001 - a window that went away while we looked
            continue
    return out


def active(window_rx, timeout):
    rx = re.compile(window_rx)
    seen = {}

    def probe():
        seen['active'] = active_windows()
        return any(rx.search(n) for n in seen['active'])

    try:
        wait_for(f'{window_rx} is not the active window', probe, timeout)
    except TimeoutError as e:
        raise TimeoutError(f'{e}; active: {seen.get("active")}') from None
    return {'active': seen['active']}


def node_text(node):
    try:
        return node.queryText().getText(0, -1)
    except Exception:  # noqa: BLE001 - no text interface
        return node.name or ''


def select_item(lst, item, index):
    """Selects a list item as arrow keys would: the list's Selection, else its Table, else the
    item's own action."""
    errors = []
    try:
        sel = lst.querySelection()
        sel.clearSelection()
        if sel.selectChild(item.getIndexInParent()):
            return
    except Exception as e:  # noqa: BLE001
        errors.append(f'Selection: {type(e).__name__} {e}')
    try:
        if lst.queryTable().addRowSelection(index):
            return
    except Exception as e:  # noqa: BLE001
        errors.append(f'Table: {type(e).__name__} {e}')
    try:
        action = item.queryAction()
        names = [action.getName(k) for k in range(action.nActions)]
        for wanted in ('SetFocus', 'setFocus', 'Toggle', 'toggle', 'Press', 'press', 'click'):
            if wanted in names:
                action.doAction(names.index(wanted))
                return
        errors.append(f'Action: only {names}')
    except Exception as e:  # noqa: BLE001
        errors.append(f'Action: {type(e).__name__} {e}')
    raise RuntimeError('cannot select the item: ' + '; '.join(errors))


def choose(window_rx, list_rx, details_rx, contains_rx, timeout):
    lrx, drx, rx = re.compile(list_rx), re.compile(details_rx), re.compile(contains_rx)
    seen = {}

    def probe():
        w = find_window(window_rx)
        if w is None:
            return None
        nodes = list(descendants(w))
        lists = [n for n in nodes if label(n)['role'] == 'list' and lrx.search(label(n)['name'])]
        details = [n for n in nodes if label(n)['role'] == 'text' and drx.search(label(n)['name'])]
        if not lists or not details:
            return None
        items = [n for n in descendants(lists[0]) if label(n)['role'] == 'list item']
        seen['texts'] = []
        for i, item in enumerate(items):
            select_item(lists[0], item, i)
            # The details pane follows the selection on the app's event loop.
            deadline = time.monotonic() + 2
            text = ''
            while time.monotonic() < deadline:
                text = node_text(details[0])
                if rx.search(text):
                    return {'text': text, 'index': i}
                time.sleep(0.05)
            seen['texts'].append(text[:300])
        return None

    try:
        return wait_for(f'no item of {list_rx} shows {contains_rx} in {window_rx}', probe, timeout)
    except TimeoutError as e:
        raise TimeoutError(f'{e}; it showed: {seen.get("texts")}') from None


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            timeout = float(req.get('timeout', 20))
            if req['cmd'] == 'walk':
                out = walk(req['window'], timeout)
            elif req['cmd'] == 'press':
                out = press(req['window'], req['role'], req['name'], timeout)
            elif req['cmd'] == 'text':
                out = text(req['window'], req['contains'], timeout)
            elif req['cmd'] == 'find':
                out = find(req['window'], req['role'], req['name'], timeout)
            elif req['cmd'] == 'names':
                out = names(req['window'], req['role'], req['contains'], timeout)
            elif req['cmd'] == 'active':
                out = active(req['window'], timeout)
            elif req['cmd'] == 'choose':
                out = choose(req['window'], req['list'], req['details'], req['contains'], timeout)
            elif req['cmd'] == 'gone':
                wait_for(f'{req["window"]} still open',
                         lambda: find_window(req['window']) is None, timeout)
                out = {}
            else:
                raise ValueError(f'unknown command {req["cmd"]}')
            out['ok'] = True
        except Exception as e:  # noqa: BLE001 - reported to the test, which fails on it
            out = {'ok': False, 'error': f'{type(e).__name__}: {e}'}
        sys.stdout.write(json.dumps(out) + '\n')
        sys.stdout.flush()


if __name__ == '__main__':
    main()
