// Package convstore reads JP's stored conversations as JP's jp_storage
// lays them out (at 4c1c39f1): a workspace's conversations live under
// `<workspace>/.jp/conversations/` and under the user-workspace storage
// `<user data dir>/workspace/<slug>-<id>/conversations/`, one directory
// per conversation named by its id (deciseconds) optionally followed by
// `-<title slug>` (ConversationId::to_dirname), holding metadata.json,
// base_config.json (the config the conversation started with, a
// serialised PartialAppConfig) and events.json (the event stream, whose
// `config_delta` events amend that config). Conversations that JP wrote
// before base_config.json existed keep the base config as the first
// event (the legacy format, ConversationStream::from_legacy_events).
// Dot-prefixed directories (`.archive`, `.trash`) are not live
// conversations.
//
// The package only finds and reads the files; what the stored config
// means for a tool's access is the config loader's (internal/config,
// the conversation layer).
package convstore
