export const en = {
  dashboard: {
    title: 'Overview',
    devices_online: '%{online} of %{total} devices online',
    recent_changes: 'Recent changes',
    no_changes: 'No changes yet',
    failed: 'The overview could not be loaded',
  },
};

export const ru: typeof en = {
  dashboard: {
    devices_online: 'В сети %{online} из %{total} устройств',
    title: 'Обзор',
    recent_changes: 'Последние изменения',
    no_changes: 'Изменений пока нет',
    failed: 'Не удалось загрузить обзор',
  },
};
