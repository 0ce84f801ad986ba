<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>ApprovalDialog</name>
    <message>
        <source>Approve a Fabric create</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SANDBOX: this broker talks to the embedded Fabric sandbox. Nothing real or billable is created.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>An agent asks to create a billable Equinix Fabric resource. Review what Fabric&apos;s dry run validated.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Target:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Requested by:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Price:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Proposed:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Proposal expires:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your answer:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request SHA-256:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Field</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request SHA-256</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The SHA-256 of the exact request that is sent to Fabric if you approve. Read-only.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy request SHA-256</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copies the request SHA-256 to the clipboard, to compare it with what the agent shows.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request fields</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every field of the request that Fabric&apos;s dry run validated, exactly as it will be sent.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refuses this proposal: nothing is created. Deny is the default answer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Deny</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Creates the billable resource in Equinix Fabric, exactly as shown. Unlocks after a short delay.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ConnectClientDialog</name>
    <message>
        <source>Connect a client - Fabric Broker</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MCP clients start this installation&apos;s executable with --stdio; it relays to this running app, where approvals appear. Every client runs the same command, so it can be allowlisted; toolsets and the approval channel come from this app&apos;s settings.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Fabric Broker</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SANDBOX: the broker talks to the embedded Fabric sandbox. Nothing real or billable is created.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fabric endpoint:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Served toolsets:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Local socket:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Proposals</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connect a client...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Turn on proposals</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connected clients</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Client</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Version</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Protocol</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Transport</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Since</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recent activity</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Connect a client...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Settings...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>View &amp;audit log...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ctrl+Q</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The proposals MCP clients made, with their state: pending, approved, denied, created or expired.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shows the command and configuration that connect an MCP client to this app.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Serves the mutate toolset, so that agents can propose creates for you to approve.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The MCP clients connected to this app now: name, version, protocol, transport and since when.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The latest events of the broker, newest last. Read-only.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Team approvals...</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Settings - Fabric Broker</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Equinix Fabric</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Endpoint:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>https://api.equinix.com</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Client ID:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Client secret:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The client ID and secret are kept in the system keychain, never in a settings file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Test connection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Broker</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Toolsets:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>read (catalog and searches)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;mutate (propose and confirm creates)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Approval channel:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Proposal lifetime:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Approval timeout:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pending proposals kept:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Toolsets and the approval channel apply at once: new sessions get them, connected clients are told that the tool list changed. Lifetime and timeouts come from the environment.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Desktop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start at login</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keeps the app running, so approvals from MCP clients appear here instead of in each client.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Endpoint</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The Equinix Fabric API address, for example https://api.equinix.com.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Client ID</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The Equinix API client ID, kept in the system keychain.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Client secret</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The Equinix API client secret, kept in the system keychain and never shown.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Asks Fabric for a token with the endpoint and credentials above, without saving them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Serves the read-only tools: the catalog and searches.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Serves the tools that propose and confirm creates; every create still needs your approval.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Approval channel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Where you approve proposals: in this app&apos;s dialog or in the MCP client.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fb::Accessibility</name>
    <message>
        <source>Saves these settings.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Closes this dialog without saving anything.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Closes this window.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Accepts and closes this dialog.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The choices for %1.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fb::ApprovalDialog</name>
    <message>
        <source>Approve: %1 - Fabric Broker</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>create a %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>confirm requested by %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fabric account:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 with %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Price details</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Policy: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2 - every field of the request Fabric&apos;s dry run validated, exactly as it will be sent:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Create connection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Create network</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Create service token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Create</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 ago (at %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expired at %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This proposal expired at %1. Approving can no longer create it: deny or close this dialog, and ask the agent to propose again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>in %1 (at %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>this prompt closes in %1 if unanswered; nothing is created then</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>nothing is created unless you approve</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expired: approving is no longer possible.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Read first: approving unlocks in a moment.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Type the last six characters of the request SHA-256 to approve.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deny is the default answer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agent gave up - %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The agent stopped waiting for this answer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The agent gave up waiting (%1). Nothing was created, and this request can no longer be approved; the agent may propose it again. Many MCP clients stop waiting after 60 seconds unless told otherwise: see &quot;Long decisions&quot; in the README.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Denied - %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This request can no longer be approved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Denied: %1. Nothing was created; the agent may propose it again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shows or hides why Fabric gave no price, in Fabric&apos;s own words.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Closes this dialog. Nothing was created, and this request can no longer be approved.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fb::ApprovalSession</name>
    <message>
        <source>the approval prompt was torn down without an answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the tool call was cancelled before the prompt opened</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>approved in the desktop dialog</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>denied in the desktop dialog</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the desktop dialog was closed without an answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no answer in the desktop dialog within %1 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the client cancelled the tool call</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the tool call was cancelled: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the tool call ended before an answer</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fb::AuditRecordModel</name>
    <message>
        <source>Seq</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time (UTC)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Target</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status / outcome</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Channel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fabric UUID</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Client</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fb::AuditViewDialog</name>
    <message>
        <source>&amp;Verify chain</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Reload</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Audit log</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Audit log: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show only records of this type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Filter: text in any column</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Type:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot read the audit log</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All types</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No audit log yet: nothing has been recorded.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot verify the audit log: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Chain intact: %n record(s), head %1</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Audit log TRUNCATED: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n record(s) verified (last good seq %1, head %2).</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Chain BROKEN at line %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chain BROKEN: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n record(s) before it verified (last good seq %1, head %2).</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Line %1: the log continues from a previous file (%2); previous head seq %3, %4.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tail not checked: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Interrupted (torn) write at line(s) %1: not part of the chain.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Showing %1 of %n record(s).</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Record type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clear the filter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Empties the filter: every record shows again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Filter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shows only the records with this text in any column.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checks the hash chain of the whole audit log: whether any record was changed, removed or reordered.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reads the audit log file again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Audit records</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One row per audit record: sequence, time, type, client and details.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fb::ClientText</name>
    <message>
        <source>unknown client</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>session %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fb::ConnectClientDialog</name>
    <message>
        <source>Executable: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy link</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Install in %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One click (opens %1):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add to %1:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run in a terminal:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>With no Fabric Broker app running, a spawned fabric-broker --stdio serves only the read tools: proposals are off. To let agents propose creates, start the Fabric Broker app and turn on proposals there (Turn on proposals, or Settings), or add --toolsets read,mutate after --stdio (used while no app runs; a running app refuses it unless proposals are on there).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 for %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copies this text to the clipboard.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Opens %1, which asks you to add this broker as an MCP server.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Configuration for %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Command for %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Read-only; Copy puts it on the clipboard.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MCP over HTTP at %1. Every request needs the bearer token, which is new at every start of Fabric Broker; none of these snippets holds it. VS Code and Claude Desktop can only be given the token as a literal (VS Code&apos;s inputs keep a pasted one, which goes stale at the next start; Claude Desktop&apos;s config file takes no headers): connect them with the stdio snippets above.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The agent reads through the core read tools by default. For the whole estate add --toolsets all-read after --stdio, or name the read toolsets it needs: read, estate, routing, observability, precision-time, marketplace, account (README, Toolsets); with the app running, turn them on in its Settings.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fb::DesktopApprover</name>
    <message>
        <source>Fabric Broker closed the approval prompt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the desktop approval dialog cannot be shown: no GUI application</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the desktop approval dialog cannot be shown: no screen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the approval dialog went away without an answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the desktop approval dialog could not be shown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fabric Broker is quitting</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the request can no longer be approved</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fb::DesktopInstance</name>
    <message>
        <source>Not switched: the keychain holds no complete credentials now; the sandbox stays in use.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not switched: the saved endpoint or credentials changed after the offer was shown. Open Settings to review them; the sandbox stays in use.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not switched: %1. The sandbox is in use again (its earlier proposals were dropped).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not switched: the keychain did not answer; the sandbox stays in use.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fb::DesktopNotifier</name>
    <message>
        <source>Open</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fb::DesktopUi</name>
    <message>
        <source>Fabric Broker keeps running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agents can still reach the broker; approvals will pop up. Quit from the tray menu.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Approval requested: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fabric Broker is closing</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n more</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n create(s) are in flight to Fabric, waiting for its answer: %1.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n approval(s) are waiting for you</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> and %n proposal(s) are pending.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Quitting denies every open approval and drops pending proposals; no new create is sent.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>It then waits up to %n second(s) for Fabric&apos;s answer to the creates in flight; a create still unanswered then is recorded in the audit log as sent with an unknown outcome (or as not sent, if it never left).</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Fabric Broker is quitting</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quit Fabric Broker?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit and deny</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Settings saved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Proposals are on: agents may propose creates; each one waits for your approval.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Settings saved, but the policy overrides them: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Proposals cannot be turned on: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Proposals stay off: the toolsets come from the command line or the environment (%1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not connected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fabric Broker runs on its embedded sandbox. The credentials you saved apply at the next start, or now:</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>- the sandbox&apos;s %n pending proposal(s) are dropped (agents must propose again);</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>- %n open approval dialog(s) are denied;</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>- connected agents (MCP sessions, relayed --stdio clients, HTTP sessions) are disconnected and must reconnect;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>- from then on, creates go to %1 with the saved account (client id %2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Switch to Equinix now? - Fabric Broker</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Switch to Equinix now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Later (at the next start)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Settings saved; the sandbox stays in use until the next start.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Settings saved. No switch now: EQUINIX_API_ENDPOINT in Fabric Broker&apos;s environment (%1) overrides the endpoint saved in Settings.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Approval needed (sandbox)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Approval needed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>An agent asks to create a %1:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Approved by the team</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Denied by the team</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expired without the team&apos;s approval</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No decision: the team database could not be asked</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your agent&apos;s proposal to create a %1:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Approved by the team and created</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Approved by the team; the outcome is unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Approved by the team, but not created</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Team approvals needed</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n proposal(s) of other workstations wait for your decision.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fb::MainWindow</name>
    <message>
        <source>(connecting, session %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>session %1%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Proposals, approvals and creates appear here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No proposals yet. Connect an MCP client (Claude Code, Claude Desktop, VS Code, Cursor, Codex, Gemini CLI): when its agent proposes a create, it appears here, and nothing is created until you approve it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No proposals yet. Connect an MCP client (Claude Code, Claude Desktop, VS Code, Cursor, Codex, Gemini CLI) to let its agent read your Fabric estate. Proposals are off: agents can only read. Turn them on to let agents propose creates, which you approve or deny here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (embedded SANDBOX)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (production)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (read-only: agents cannot propose creates)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(not listening)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fabric Broker - SANDBOX</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fabric Broker</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> [sha %1...]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> by %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>proposed %1: %2%3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>proposal refused%1%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>confirm token redeemed: %1%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>asking a person (%1 channel)%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>decision: the agent gave up waiting (call_cancelled via %1); nothing was sent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>decision: %1 via %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sending the approved create to Fabric</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>create %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, uuid %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (correlation id %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>client connected: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>client disconnected: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No proposals yet. Connect an MCP client (Claude Code, Claude Desktop, VS Code, Cursor, Codex, Gemini CLI) to let its agent read your Fabric estate. Proposals are off and cannot be turned on here: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (read-only: agents cannot propose creates; mutate is %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>policy files changed: the mutate toolset is refused until they are fixed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>policy files changed: served toolsets %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Warning: %1. The HTTP bearer token was replaced; clients using stdio or the local socket are not affected.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Warning: MCP over HTTP is off</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Warning: the team database is unreachable (%1). Proposals and confirms are refused until it is back; reads keep working, and a confirm already waiting for approvals waits on.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Warning: the team database is unreachable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>team approval by %1 rejected: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>switched from the sandbox to %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>audit export to %1 interrupted after record %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>audit export to %1 resumed from record %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>audit export to %1 lost records %2 to %3: %4</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fb::PolicyLocks</name>
    <message>
        <source>Locked by policy (fabric-broker policy show):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>set by your administrator: %1 in %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>set by your policy file: %1 in %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The %1 toolset is not allowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Approvals</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fabric endpoint</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Creating without a person&apos;s approval is locked off: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The mutate toolset is not allowed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Overridden: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>last 6 characters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Last six characters of the request SHA-256</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The policy asks you to type them before approving; the request SHA-256 is shown above.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Type the last six characters of the request SHA-256 to approve:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The %1 toolsets are not allowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OpenTelemetry collector</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Audit records to syslog</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fb::ProposalTableModel</name>
    <message>
        <source>unpriced</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2/mo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Target</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Client</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Price</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Age</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expires in</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>State</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>pending</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>confirming</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>awaiting approval</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>approved, sending</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>executed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>outcome unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>rejected by Fabric</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>declined</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dismissed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>timed out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>call cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>approval failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not executed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expired</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>evicted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1
request SHA-256: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>proposed at %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expires at %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>during approval</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fb::ServerHost</name>
    <message>
        <source>OpenTelemetry</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; last export %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; last error: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Prometheus</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (GET /metrics with the HTTP bearer token)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>off (serve MCP over HTTP to get /metrics)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Audit records to syslog</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>connected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not connected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>off</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (set by %2); %3 spans exported, %4 dropped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OTEL_* variables</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (set by %2), %3; %4 records sent, %5 waiting, %6 lost</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fb::SettingsDialog</name>
    <message>
        <source>SANDBOX: this session talks to the embedded Fabric sandbox. Saved values apply when Fabric Broker runs against Equinix Fabric.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not set</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>set - leave empty to keep the current secret</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The MCP client&apos;s prompt (elicitation)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This app&apos;s approval dialog</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No keychain is available: credentials can only come from the environment.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keychain unavailable: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stored in the keychain - leave empty to keep it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter a client ID and secret first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Testing...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connected: Fabric issued an access token.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Failed (%1): %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose at least one toolset.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start at login could not be changed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No keychain: the credentials were not saved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saving to the keychain...</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Saving another endpoint or new credentials voids the %n pending proposal(s): they were dry-run under the current account. Agents must propose them again.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Also serve MCP over HTTP on %1 (loopback; clients need the bearer token shown in Connect a client; takes effect at the next start)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Serves MCP over HTTP on the loopback address too, from the next start.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No keychain: the team database password was not saved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>saved in the OS keychain</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Team mode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Team database</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The team&apos;s PostgreSQL database as a libpq URI, without a password. Empty: no team mode.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>kept in the OS keychain; empty: ~/.pgpass, peer or a certificate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Team database password</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Team mode changes apply when Fabric Broker starts again (docs/team.md).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Team database:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Password:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Set by your administrator: team.database in %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Off. Only your administrator&apos;s policy (team.database in /etc/fabric-broker/policy.json) turns team mode on.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>That is the embedded sandbox&apos;s own address, which changes at every start. Enter your Equinix Fabric endpoint (%1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the team database password</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the credentials</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The keychain refused %1: %2. Nothing was stored in a file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>read (%1 tools): the core catalog and searches</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2 tools): %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Observability</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OpenTelemetry collector: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Audit records to syslog: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Used from the next start; the policy&apos;s %1 and %2 win over it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is set in this app&apos;s environment and wins over the saved value.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OpenTelemetry collector</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Audit records to syslog</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OpenTelemetry collector:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Audit records to syslog:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Traces and metrics over OTLP/HTTP, and every audit record as syslog (tcp:// or tls://). Used from the next start; the policy and the environment (OTEL_EXPORTER_OTLP_ENDPOINT, FABRIC_BROKER_AUDIT_SYSLOG) win. Never an argument value, a result or a secret (docs/observability.md).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Notify me when a proposal needs me or a decision arrives</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shows a desktop notification when an approval waits for you and, in team mode, when the team decided on your proposal; it opens the dialog and never approves.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fb::TeamApprovalsDialog</name>
    <message>
        <source>&amp;Approve</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Deny</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Team approvals</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Team database status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open team proposals</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Proposal details</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>team mode is off</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The team database is unreachable: %1. No decision can be recorded until it is back.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not read the queue: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This is your own proposal: your approval would not count. You may deny it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your decision was not recorded: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Team status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Approvals that do not count</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1&apos;s approval does not count: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no approval key is configured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Signing your decision with your approval key...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>signed with key %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not signed: the keychain&apos;s approval key is not an Ed25519 key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not signed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your decision (%1) is recorded, %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Mark &amp;created</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Mark &amp;not created</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The create reached Fabric: the one resource the lookup found is it. Recorded for the whole team, signed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The create did not reach Fabric: the lookup found no resource of this name. Recorded for the whole team, signed; it then no longer counts in the team&apos;s day.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lookup: %1 (searching...)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This is your own proposal: another person marks its outcome.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One resource has its name: if it is this create, mark it created.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No resource has its name: if the create did not reach Fabric, mark it not created.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Several resources have its name: look in the Equinix portal which one it is; it cannot be marked here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The create may have reached Fabric (outcome unknown); it is never sent again and counts as spent until a person other than the proposer marks its outcome. %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The create is being sent (or its sender stopped); it is never sent again. Look it up: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Signing the outcome with your approval key...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The outcome (%1) is recorded for the team, %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The outcome was not recorded: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The catalog is being searched for it: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The search could not tell (%1), so its outcome cannot be marked here. Look it up where the create was sent: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fb::TeamDesk</name>
    <message>
        <source>the app is shutting down</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Outcome unknown: a second person is needed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Team approval needed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 proposed by %2 (OS user %3 on %4)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request SHA-256 %1...</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fb::TrayIcon</name>
    <message>
        <source>Show Fabric Broker</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connect a client...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Settings...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fabric Broker (SANDBOX)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fabric Broker</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n approval(s) waiting</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n proposal(s) pending</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Approval needed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>An agent asks to create a %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fb::keychain::CredentialStore</name>
    <message>
        <source>Without a keychain, set EQUINIX_API_CLIENTID and EQUINIX_API_CLIENTSECRET in the environment instead.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the keychain refused access (%1). %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no keychain service answered (%1). Saving credentials needs a Secret Service provider such as GNOME Keyring or KeePassXC (with its Secret Service integration on), or KWallet, running in this session. %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
