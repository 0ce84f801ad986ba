#!/usr/bin/python3
"""A desktop's notification server, as the desktop e2e tests need one: org.freedesktop.Notifications
(the freedesktop Desktop Notifications specification, 1.2) on the session bus of
$DBUS_SESSION_BUS_ADDRESS, written with GLib's D-Bus (python3-gi), showing nothing.

Each line on stdout is one JSON event:
  {"event": "ready", "name": UNIQUE_NAME}
  {"event": "notify", "id", "app_name", "replaces_id", "app_icon", "summary", "body", "actions",
   "hints", "expire_timeout"}
  {"event": "close", "id"}
Each line on stdin is one JSON command, as a person acts on a notification:
  {"cmd": "invoke", "id": ID, "action": KEY}
      ActionInvoked(ID, KEY), then NotificationClosed(ID, 2) (dismissed), as servers do after an
      action of a notification that is not resident; answers {"event": "invoked", "id"}
Arguments: --no-markup leaves "body-markup" out of GetCapabilities.
"""
import json
import sys

import gi

gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402

NAME = 'org.freedesktop.Notifications'
PATH = '/org/freedesktop/Notifications'
XML = f"""<node><interface name="{NAME}">
  <method name="GetCapabilities"><arg type="as" direction="out"/></method>
  <method name="Notify">
    <arg type="s" direction="in"/><arg type="u" direction="in"/><arg type="s" direction="in"/>
    <arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="as" direction="in"/>
    <arg type="a{{sv}}" direction="in"/><arg type="i" direction="in"/>
    <arg type="u" direction="out"/>
  </method>
  <method name="CloseNotification"><arg type="u" direction="in"/></method>
  <method name="GetServerInformation">
    <arg type="s" direction="out"/><arg type="s" direction="out"/><arg type="s" direction="out"/>
    <arg type="s" direction="out"/>
  </method>
  <signal name="NotificationClosed"><arg type="u"/><arg type="u"/></signal>
  <signal name="ActionInvoked"><arg type="u"/><arg type="s"/></signal>
</interface></node>"""

capabilities = ['body', 'actions'] + ([] if '--no-markup' in sys.argv else ['body-markup'])
next_id = 0
shown = set()


def say(event):
    sys.stdout.write(json.dumps(event) + '\n')
    sys.stdout.flush()


def plain(value):
    """A hint's value as JSON can hold it."""
    if isinstance(value, (bytes, bytearray)):
        return list(value)
    return value


def emit(conn, signal, args):
    conn.emit_signal(None, PATH, NAME, signal, args)


def on_call(conn, sender, path, iface, method, params, invocation):
    global next_id
    if method == 'GetCapabilities':
        invocation.return_value(GLib.Variant('(as)', (capabilities,)))
    elif method == 'GetServerInformation':
        invocation.return_value(GLib.Variant('(ssss)', ('e2e-notifications', 'fabric-broker-tests', '1', '1.2')))
    elif method == 'Notify':
        app, replaces, icon, summary, body, actions, hints, expire = params.unpack()
        nid = replaces if replaces in shown else None
        if nid is None:
            next_id += 1
            nid = next_id
        shown.add(nid)
        say({'event': 'notify', 'id': nid, 'app_name': app, 'replaces_id': replaces, 'app_icon': icon,
             'summary': summary, 'body': body, 'actions': list(actions),
             'hints': {k: plain(v) for k, v in hints.items()}, 'expire_timeout': expire, 'sender': sender})
        invocation.return_value(GLib.Variant('(u)', (nid,)))
    elif method == 'CloseNotification':
        (nid,) = params.unpack()
        if nid in shown:
            shown.discard(nid)
            emit(conn, 'NotificationClosed', GLib.Variant('(uu)', (nid, 3)))
        say({'event': 'close', 'id': nid})
        invocation.return_value(None)


def main():
    address = Gio.dbus_address_get_for_bus_sync(Gio.BusType.SESSION, None)
    conn = Gio.DBusConnection.new_for_address_sync(
        address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
    info = Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0]
    conn.register_object(PATH, info, on_call, None, None)
    reply = conn.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'RequestName',
                           GLib.Variant('(su)', (NAME, 4)), GLib.VariantType('(u)'), Gio.DBusCallFlags.NONE, -1, None)
    if reply.unpack()[0] != 1:
        sys.exit(f'{NAME} is owned by another program')
    loop = GLib.MainLoop()

    def on_stdin(channel, condition):
        line = channel.readline()
        if not line:
            loop.quit()
            return False
        req = json.loads(line)
        if req.get('cmd') == 'invoke':
            nid = int(req['id'])
            emit(conn, 'ActionInvoked', GLib.Variant('(us)', (nid, req.get('action', 'default'))))
            if nid in shown:
                shown.discard(nid)
                emit(conn, 'NotificationClosed', GLib.Variant('(uu)', (nid, 2)))
            conn.flush_sync(None)
            say({'event': 'invoked', 'id': nid})
        return True

    channel = GLib.IOChannel.unix_new(sys.stdin.fileno())
    GLib.io_add_watch(channel, GLib.PRIORITY_DEFAULT, GLib.IOCondition.IN | GLib.IOCondition.HUP, on_stdin)
    say({'event': 'ready', 'name': conn.get_unique_name()})
    loop.run()


if __name__ == '__main__':
    main()
