// The header of a table's last column of row buttons: empty on screen, named "Actions" for screen readers so the
// column is not announced as blank.
import { Table, VisuallyHidden } from '@mantine/core';

export function ActionsColumnHeader() {
  return (
    <Table.Th>
      <VisuallyHidden>Actions</VisuallyHidden>
    </Table.Th>
  );
}
