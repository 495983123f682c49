-- name: CreateAuthor :one
INSERT INTO authors (name, bio) VALUES ($1, $2) RETURNING *;

-- name: GetAuthor :one
SELECT * FROM authors WHERE id = $1;

-- name: ListAuthors :many
SELECT * FROM authors ORDER BY id;

-- name: CreateBook :one
INSERT INTO books (author_id, title, isbn) VALUES ($1, $2, $3) RETURNING id;

-- name: CreateBooks :copyfrom
INSERT INTO books (author_id, title, isbn) VALUES ($1, $2, $3);

-- name: CreateAuthors :copyfrom
INSERT INTO authors (name, bio) VALUES ($1, $2);

-- name: RenameAuthors :batchexec
UPDATE authors SET name = $2 WHERE id = $1;

-- name: AddAuthors :batchexec
INSERT INTO authors (name, bio) VALUES ($1, $2);

-- name: NextInvoiceNo :one
SELECT nextval('invoice_no');

-- name: CountBooks :one
SELECT count(*) FROM books;

-- name: DeleteAuthor :exec
DELETE FROM authors WHERE id = $1;
