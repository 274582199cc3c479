package librarian
