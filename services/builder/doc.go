package builder
