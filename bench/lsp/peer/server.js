// The peer for bench/lsp: a language server that does nothing but keep its
// open documents with vscode-languageserver's TextDocuments (incremental
// sync), the document handling most Node language servers share. cb-ls's
// figures are read against it. Requests it does not handle are answered
// "method not found", which is all the driver's probe needs.
'use strict';
const { createConnection, TextDocuments, TextDocumentSyncKind } = require('vscode-languageserver/node');
const { TextDocument } = require('vscode-languageserver-textdocument');

const connection = createConnection();
const documents = new TextDocuments(TextDocument);
connection.onInitialize(() => ({ capabilities: { textDocumentSync: TextDocumentSyncKind.Incremental } }));
documents.listen(connection);
connection.listen();
